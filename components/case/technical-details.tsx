import { CopyButton } from "@/components/ui/copy-button";
import { Time } from "@/components/ui/time";
import { type EventField, eventFields } from "@/lib/domain/event-fields";
import { requestFields, requestGist } from "@/lib/domain/request-fields";
import type { CaseDetail } from "@/lib/services/case/get-case";

/**
 * Everything a decision rarely needs, folded into one section at the end of the case: identifiers,
 * the request fingerprint, the request and the producer's evidence as labelled facts, what the
 * provider's API allows, and, one step further in, the stored JSON as it is (docs/decisions/062).
 */
export function TechnicalDetails({ detail }: { detail: CaseDetail }) {
  const gist = requestGist(detail.requestSummary);
  return (
    <section
      aria-labelledby="technical-heading"
      data-testid="technical-details"
      className="rounded border border-slate-300 bg-white p-4"
    >
      <details>
        <summary className="cursor-pointer">
          <h2 id="technical-heading" className="inline font-semibold">
            Technical details
          </h2>
          {gist ? <span className="ml-2 text-sm text-slate-700">{gist}</span> : null}
        </summary>
        <dl className="mt-3 grid grid-cols-[max-content_1fr] gap-x-3 gap-y-1 text-sm" data-testid="technical-fields">
          <Field label="Attempt">
            <span className="break-all font-mono">{detail.attemptId}</span>
            <CopyButton value={detail.attemptId} label="attempt ID" />
          </Field>
          <Field label="Episode">{detail.episode}</Field>
          <Field label="Fingerprint">
            <code className="break-all">{detail.requestFingerprint}</code>
          </Field>
          <Field label="Status checks">{detail.counters.pollAttempts}</Field>
          <Field label="Delivery attempts">{detail.counters.deliveryAttempts}</Field>
          <Field label="Submitted to the provider">
            <Time at={detail.submittedAt} fallback="not recorded" />
          </Field>
        </dl>
        <Facts title="Request (sanitised)" fields={requestFields(detail.requestSummary)} testId="request-fields" />
        <Facts
          title="Latest evidence from the producer"
          fields={eventFields(detail.evidence, null)}
          testId="evidence-fields"
        />
        {detail.providerCapabilities.notes.length > 0 ? (
          <>
            <h3 className="mt-3 text-sm font-medium">What {detail.provider}&apos;s API allows</h3>
            <ul data-testid="provider-capabilities" className="mt-1 list-disc pl-5 text-sm text-slate-700">
              {detail.providerCapabilities.notes.map((note) => (
                <li key={note}>{note}</li>
              ))}
            </ul>
          </>
        ) : null}
        <details className="mt-3 text-sm">
          <summary className="cursor-pointer">Raw JSON (as stored)</summary>
          <h3 className="mt-2 text-xs font-medium">Request summary</h3>
          <Raw value={detail.requestSummary} />
          <h3 className="mt-2 text-xs font-medium">Producer evidence</h3>
          <Raw value={detail.evidence} />
        </details>
      </details>
    </section>
  );
}

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="contents">
      <dt className="text-slate-700">{label}</dt>
      <dd className="min-w-0 break-words">{children}</dd>
    </div>
  );
}

function Facts({ title, fields, testId }: { title: string; fields: EventField[]; testId: string }) {
  return (
    <>
      <h3 className="mt-3 text-sm font-medium">{title}</h3>
      {fields.length === 0 ? (
        <p className="text-sm text-slate-700">none</p>
      ) : (
        <dl className="mt-1 grid grid-cols-[max-content_1fr] gap-x-3 gap-y-1 text-sm" data-testid={testId}>
          {fields.map((field) => (
            <Field key={field.key} label={field.label}>
              <span className="whitespace-pre-wrap break-words">
                {field.time ? <Time at={field.value} /> : field.value}
              </span>
            </Field>
          ))}
        </dl>
      )}
    </>
  );
}

/** Stored JSON as text (React escapes it): stored HTML never becomes markup. */
function Raw({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <p className="text-slate-700">none</p>;
  return <pre className="whitespace-pre-wrap break-all font-mono text-xs">{JSON.stringify(value, null, 2)}</pre>;
}
