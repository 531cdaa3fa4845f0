import { RoleLink } from "@/components/console/role-link";
import { financeHref } from "@/components/finance/finance-href";
import { Badge, StageBadge, StateBadge } from "@/components/ui/badge";
import {
  ATTEMPT_KIND_WORDS,
  CASE_OUTCOME_WORDS,
  HOLD_STATUS_WORDS,
  inWords,
  LEDGER_WORDS,
  OBSERVATION_WORDS,
} from "@/components/ui/code-words";
import { CopyButton } from "@/components/ui/copy-button";
import { formatAge, formatBytes, formatWhen } from "@/components/ui/format";
import { TableHead } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import { eventFields } from "@/lib/domain/event-fields";
import { formatMicros } from "@/lib/domain/money";
import type { Role } from "@/lib/domain/roles";
import { describeEvent } from "@/lib/domain/timeline-words";
import type { CaseDetail } from "@/lib/services/case/get-case";
import { LastAttemptBanner, WaitingOnText } from "./case-progress";

/** Evidence and payloads are shown as text (React escapes it): stored HTML never becomes markup. */
export function JsonText({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <span className="text-slate-600">none</span>;
  if (typeof value === "object" && !Array.isArray(value) && "text" in value && typeof value.text === "string") {
    const { text, ...rest } = value as Record<string, unknown>;
    const extra = Object.entries(rest).filter(([, v]) => v !== null && v !== undefined);
    return (
      <div>
        <p className="whitespace-pre-wrap">{String(text)}</p>
        {extra.length > 0 && (
          <p className="text-xs text-slate-700">
            {extra.map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`).join(" · ")}
          </p>
        )}
      </div>
    );
  }
  return (
    <pre data-technical className="whitespace-pre-wrap break-all font-mono text-xs">
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

export function CaseHeader({ detail, now, roles }: { detail: CaseDetail; now: number; roles: readonly Role[] }) {
  const age = Math.max(0, Math.floor((now - Date.parse(detail.openedAt)) / 1000));
  return (
    <header className="rounded border border-slate-300 bg-white p-4">
      <h1 className="text-xl font-semibold">
        Operation <span className="font-mono">{detail.operationId}</span>
        <CopyButton value={detail.operationId} label="operation ID" />
      </h1>
      <p className="mt-1 text-sm">
        <WaitingOnText waiting={detail.progress.waitingOn} />
      </p>
      <div className="mt-2">
        <LastAttemptBanner attempt={detail.progress.lastAttempt} />
      </div>
      <dl className="mt-2 grid grid-cols-2 gap-x-6 gap-y-1 text-sm md:grid-cols-4">
        <dt className="text-slate-700">Attempt</dt>
        <dd className="font-mono">
          {detail.attemptId}
          <CopyButton value={detail.attemptId} label="attempt ID" />
        </dd>
        <dt className="text-slate-700">Stage</dt>
        <dd>
          <StageBadge stage={detail.stage} />
        </dd>
        <dt className="text-slate-700">State</dt>
        <dd>
          <StateBadge state={detail.state} />
          {detail.outcome ? (
            <span className="ml-2 text-slate-700" title={`stored as ${detail.outcome}`}>
              ({inWords(CASE_OUTCOME_WORDS, detail.outcome)})
            </span>
          ) : null}
          {detail.escalation ? (
            <span
              className="ml-2"
              title={`${detail.escalation.reason ?? "deadline passed"}; escalated ${formatWhen(detail.escalation.at)}`}
            >
              <Badge tone="danger">escalated: deadline passed</Badge>
            </span>
          ) : null}
          {detail.redactedAt ? (
            <span className="ml-2" title={`customer text and videos removed ${formatWhen(detail.redactedAt)}`}>
              <Badge tone="neutral">redacted by the retention policy</Badge>
            </span>
          ) : null}
          {detail.holdOpen ? (
            <span className="ml-2">
              <Badge tone="warn">resolved, hold open — needs a decision</Badge>{" "}
              <RoleLink
                roles={roles}
                permission="hold:read"
                href={financeHref({ view: "needs_decision" }, detail.producer)}
                otherwise="Finance decides this hold."
              >
                Decide in finance
              </RoleLink>
            </span>
          ) : null}
          {detail.producerNotTold.length > 0 ? (
            <span className="ml-2">
              <Badge tone="warn">producer not told</Badge>
            </span>
          ) : null}
          {detail.chargedAfterRelease ? (
            <span className="ml-2">
              <Badge tone="danger">charged after release — finance to decide</Badge>{" "}
              <RoleLink
                roles={roles}
                permission="hold:read"
                href="/finance#charged-after-release"
                otherwise="Finance decides this charge."
              >
                Decide in finance
              </RoleLink>
            </span>
          ) : null}
        </dd>
        <dt className="text-slate-700">Age</dt>
        <dd>{formatAge(age)}</dd>
        <dt className="text-slate-700">Assignee</dt>
        <dd>{detail.assignee ? detail.assignee.name : "nobody"}</dd>
        <dt className="text-slate-700">Money on hold</dt>
        <dd className="font-medium">{formatMicros(detail.heldMicros, detail.currency)}</dd>
        <dt className="text-slate-700">Provider / model</dt>
        <dd>
          {detail.provider} / {detail.model}
          <ProviderNotes notes={detail.providerCapabilities.notes} />
        </dd>
        <dt className="text-slate-700">Provider job</dt>
        <dd>
          <span className="font-mono">{detail.providerJobId ?? "unknown"}</span>
          {detail.providerJobId ? <CopyButton value={detail.providerJobId} label="provider job ID" /> : null}
          <ProviderJobLink page={detail.providerJobPage} provider={detail.provider} />
        </dd>
        <dt className="text-slate-700">Episode</dt>
        <dd>{detail.episode}</dd>
      </dl>
    </header>
  );
}

/** What the provider's API allows, where it changes what evidence a decision needs. */
function ProviderNotes({ notes }: { notes: string[] }) {
  if (notes.length === 0) return null;
  return (
    <ul data-testid="provider-capabilities" className="mt-1 list-disc pl-5 text-xs text-slate-700">
      {notes.map((note) => (
        <li key={note}>{note}</li>
      ))}
    </ul>
  );
}

/** The job on the provider's own console, in a new tab; where there is none, the reason instead. */
function ProviderJobLink({ page, provider }: { page: CaseDetail["providerJobPage"]; provider: string }) {
  if (!page) return null;
  if (page.url === null) {
    return (
      <span data-testid="provider-job-page" className="ml-2 text-xs text-slate-700">
        ({page.why})
      </span>
    );
  }
  return (
    <a
      data-testid="provider-job-page"
      href={page.url}
      target="_blank"
      rel="noreferrer"
      className="ml-2 text-xs text-brand underline"
    >
      open at {provider}
      <span className="sr-only"> (opens in a new tab)</span>
    </a>
  );
}

export function RequestSection({ detail }: { detail: CaseDetail }) {
  return (
    <section aria-labelledby="request-heading" className="rounded border border-slate-300 bg-white p-4">
      <h2 id="request-heading" className="font-semibold">
        Request and evidence
      </h2>
      <p className="mt-1 text-sm">
        Fingerprint <code className="break-all">{detail.requestFingerprint}</code>
      </p>
      <h3 className="mt-2 text-sm font-medium">Sanitised request summary</h3>
      <JsonText value={detail.requestSummary} />
      <h3 className="mt-2 text-sm font-medium">Latest evidence from the producer</h3>
      <JsonText value={detail.evidence} />
      <p className="mt-2 text-sm text-slate-700">
        Status checks so far: {detail.counters.pollAttempts}; delivery attempts: {detail.counters.deliveryAttempts}
        {detail.submittedAt ? (
          <>
            ; submitted to the provider <Time at={detail.submittedAt} />
          </>
        ) : null}
      </p>
    </section>
  );
}

export function LineageSection({ detail }: { detail: CaseDetail }) {
  return (
    <section aria-labelledby="lineage-heading" className="rounded border border-slate-300 bg-white p-4">
      <h2 id="lineage-heading" className="font-semibold">
        Holds, ledger and lineage
      </h2>
      <table className="mt-2 w-full text-left text-sm">
        <TableHead
          cell="px-2 py-1"
          columns={["Attempt", "Kind", "Hold", { label: "Amount", align: "right" }, "Ledger"]}
        />
        <tbody>
          {detail.lineage.map((attempt) => (
            <tr key={attempt.attemptId} className="border-b border-slate-200 align-top">
              <td className="px-2 py-1 font-mono">{attempt.attemptId}</td>
              <td className="px-2 py-1">
                {inWords(ATTEMPT_KIND_WORDS, attempt.kind)}
                {attempt.replacesAttemptId ? ` of ${attempt.replacesAttemptId}` : ""}
              </td>
              <td className="px-2 py-1">
                {attempt.hold ? `${attempt.hold.holdId} (${inWords(HOLD_STATUS_WORDS, attempt.hold.status)})` : "none"}
              </td>
              <td className="px-2 py-1 text-right tabular-nums">
                {attempt.hold ? formatMicros(attempt.hold.amountMicros, attempt.hold.currency) : "—"}
              </td>
              <td className="px-2 py-1">
                <ul>
                  {attempt.hold?.entries.map((entry) => (
                    <li key={`${entry.kind}-${entry.at}`}>
                      {inWords(LEDGER_WORDS, entry.kind)}{" "}
                      {formatMicros(entry.amountMicros, attempt.hold?.currency ?? "USD")}
                      {entry.flagged ? " ⚑ flagged" : ""} · {entry.actor}
                      {entry.note ? ` · ${entry.note}` : ""}
                    </li>
                  ))}
                </ul>
              </td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          {detail.lineageCost.map((cost) => (
            <tr key={cost.currency} data-testid={`lineage-cost-${cost.currency}`}>
              <th scope="row" colSpan={3} className="px-2 py-1 text-right">
                Across attempts, {cost.currency}
              </th>
              <td className="px-2 py-1 text-right font-medium tabular-nums">
                {formatMicros(cost.chargedMicros, cost.currency)} charged
              </td>
              <td className="px-2 py-1 tabular-nums">
                {formatMicros(cost.reservedMicros, cost.currency)} reserved
                {cost.heldMicros > 0 ? ` · ${formatMicros(cost.heldMicros, cost.currency)} still held` : ""}
              </td>
            </tr>
          ))}
        </tfoot>
      </table>
    </section>
  );
}

export function TimelineSection({ detail }: { detail: CaseDetail }) {
  return (
    <section aria-labelledby="timeline-heading" className="rounded border border-slate-300 bg-white p-4">
      <h2 id="timeline-heading" className="font-semibold">
        Timeline (newest first)
      </h2>
      <ol className="mt-2 space-y-2 text-sm" data-testid="timeline">
        {detail.timeline.map((event) => {
          const words = describeEvent(event);
          return (
            <li key={event.id} className="border-l-2 border-slate-300 pl-3">
              <div>
                <span className="font-medium">{words.sentence}</span>
                <span className="text-slate-700">
                  {" "}
                  · by {event.actor} · recorded <Time at={event.at} />
                  {event.episode ? ` · episode ${event.episode}` : ""}
                </span>
              </div>
              {words.said ? <p className="whitespace-pre-wrap">{words.said}</p> : null}
              <EventDetails event={event} said={words.said} />
            </li>
          );
        })}
      </ol>
    </section>
  );
}

/** The event's facts as labelled words; the row as the audit chain stores it sits one step further in. */
function EventDetails({ event, said }: { event: CaseDetail["timeline"][number]; said: string | null }) {
  const fields = eventFields(event.evidence, said);
  return (
    <details className="text-xs text-slate-700">
      <summary className="cursor-pointer">Details</summary>
      {fields.length > 0 ? (
        <dl className="mt-1 grid grid-cols-[max-content_1fr] gap-x-3 gap-y-0.5" data-testid="event-fields">
          {fields.map((field) => (
            <div key={field.key} className="contents">
              <dt>{field.label}</dt>
              <dd className="break-all text-slate-900">{field.time ? <Time at={field.value} /> : field.value}</dd>
            </div>
          ))}
        </dl>
      ) : (
        <p className="mt-1">No further details.</p>
      )}
      <details className="mt-1">
        <summary className="cursor-pointer">As stored (JSON)</summary>
        <p>
          Event <code>{event.kind}</code>
        </p>
        {event.evidence ? <JsonText value={event.evidence} /> : null}
      </details>
    </details>
  );
}

export function ObservationsSection({ detail }: { detail: CaseDetail }) {
  return (
    <section aria-labelledby="observations-heading" className="rounded border border-slate-300 bg-white p-4">
      <h2 id="observations-heading" className="font-semibold">
        Provider observations and delivered files
      </h2>
      {detail.observations.length === 0 ? (
        <p className="mt-1 text-sm text-slate-700">No status check has run for this case yet.</p>
      ) : (
        <ol className="mt-2 space-y-1 text-sm" data-testid="observations">
          {detail.observations.map((o) => (
            <li key={o.id}>
              <strong title={`stored as ${o.kind}`}>{inWords(OBSERVATION_WORDS, o.kind)}</strong>
              {o.providerStatus ? ` (the provider says “${o.providerStatus}”)` : ""} · seen <Time at={o.at} />
            </li>
          ))}
        </ol>
      )}
      {detail.assets.length > 0 && (
        <ul className="mt-3 space-y-1 text-sm" data-testid="delivered-files">
          {detail.assets.map((a) => (
            <li key={a.storageKey}>
              Output {a.outputIndex}: <span title={`${a.sizeBytes} bytes`}>{formatBytes(a.sizeBytes)}</span>
              {a.publishedAt ? (
                <>
                  {" "}
                  · published <Time at={a.publishedAt} />
                </>
              ) : null}{" "}
              · storage path <CopyButton value={a.storageKey} label="storage path" /> · SHA-256{" "}
              <code className="break-all">{a.sha256}</code>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
