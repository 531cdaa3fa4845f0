import { RoleLink } from "@/components/console/role-link";
import { financeHref } from "@/components/finance/finance-href";
import { Badge, StageBadge, StateBadge } from "@/components/ui/badge";
import {
  ATTEMPT_KIND_WORDS,
  CASE_OUTCOME_WORDS,
  ESCALATION_WORDS,
  HOLD_STATUS_WORDS,
  inWords,
  LEDGER_WORDS,
  OBSERVATION_WORDS,
} from "@/components/ui/code-words";
import { CopyButton } from "@/components/ui/copy-button";
import { formatAge, formatBytes } from "@/components/ui/format";
import { ScrollRegion, TableHead } from "@/components/ui/table";
import { Time, TimeTitled } from "@/components/ui/time";
import { eventFields } from "@/lib/domain/event-fields";
import { formatMicros } from "@/lib/domain/money";
import type { Role } from "@/lib/domain/roles";
import { describeEvent } from "@/lib/domain/timeline-words";
import type { CaseDetail } from "@/lib/services/case/get-case";
import { LastAttemptBanner, WaitingOnText } from "./case-progress";
import { OutputLinks } from "./output-links";

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

/**
 * What happened and what happens next, first on the page: the operation, who the case waits on and
 * why, how the last attempt went, and the few facts a decision reads. The rest is further down.
 */
export function CaseHeader({ detail, now, roles }: { detail: CaseDetail; now: number; roles: readonly Role[] }) {
  const age = Math.max(0, Math.floor((now - Date.parse(detail.openedAt)) / 1000));
  return (
    <header className="rounded border border-slate-300 bg-white p-3 md:p-4">
      <h1 className="text-lg font-semibold md:text-xl">
        Operation <span className="break-all font-mono">{detail.operationId}</span>
        <CopyButton value={detail.operationId} label="operation ID" />
      </h1>
      <p className="mt-1 text-sm">
        <WaitingOnText waiting={detail.progress.waitingOn} />
      </p>
      <div className="mt-2">
        <LastAttemptBanner attempt={detail.progress.lastAttempt} />
      </div>
      <dl className="mt-2 grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm md:grid-cols-[max-content_1fr_max-content_1fr]">
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
            <TimeTitled
              className="ml-2"
              at={detail.escalation.at}
              before={`${detail.escalation.reason ? inWords(ESCALATION_WORDS, detail.escalation.reason) : "deadline passed"}; escalated `}
            >
              <Badge tone="danger">escalated: deadline passed</Badge>
            </TimeTitled>
          ) : null}
          {detail.redactedAt ? (
            <TimeTitled className="ml-2" at={detail.redactedAt} before="customer text and videos removed ">
              <Badge tone="neutral">redacted by the retention policy</Badge>
            </TimeTitled>
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
        <dt className="text-slate-700">Provider / model</dt>
        <dd className="break-words">
          {detail.provider} / {detail.model}
        </dd>
        <dt className="text-slate-700">Provider job</dt>
        <dd>
          <span className="break-all font-mono">{detail.providerJobId ?? "unknown"}</span>
          {detail.providerJobId ? <CopyButton value={detail.providerJobId} label="provider job ID" /> : null}
          <ProviderJobLink page={detail.providerJobPage} provider={detail.provider} />
        </dd>
      </dl>
    </header>
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

/** The money: what is held now, and every attempt's hold and ledger, with the cost across attempts. */
export function MoneySection({ detail }: { detail: CaseDetail }) {
  return (
    <section aria-labelledby="money-heading" className="rounded border border-slate-300 bg-white p-4">
      <h2 id="money-heading" className="font-semibold">
        Money
      </h2>
      <p className="mt-1 text-sm">
        On hold now: <strong data-testid="money-on-hold">{formatMicros(detail.heldMicros, detail.currency)}</strong>
      </p>
      <h3 id="lineage-heading" className="mt-2 text-sm font-medium">
        Holds, ledger and lineage
      </h3>
      {/* Long IDs wrap, so a phone shows the table whole; should it still not fit, it scrolls by keyboard too. */}
      <ScrollRegion label="Holds, ledger and lineage" className="mt-1">
        <table className="w-full text-left text-sm" aria-labelledby="lineage-heading">
          <TableHead
            cell="px-2 py-1"
            columns={["Attempt", "Kind", "Hold", { label: "Amount", align: "right" }, "Ledger"]}
          />
          <tbody>
            {detail.lineage.map((attempt) => (
              <tr key={attempt.attemptId} className="border-b border-slate-200 align-top">
                <td className="break-all px-2 py-1 font-mono">{attempt.attemptId}</td>
                {/* Words wrap between words ("original" stays whole); a long replaced ID may widen the scroll region. */}
                <td className="px-2 py-1">
                  {inWords(ATTEMPT_KIND_WORDS, attempt.kind)}
                  {attempt.replacesAttemptId ? ` of ${attempt.replacesAttemptId}` : ""}
                </td>
                <td className="break-all px-2 py-1">
                  {attempt.hold
                    ? `${attempt.hold.holdId} (${inWords(HOLD_STATUS_WORDS, attempt.hold.status)})`
                    : "none"}
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
      </ScrollRegion>
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
              {/* An earlier attempt's copy stays listed and playable, named as such (decision 071). */}
              {a.current ? (
                <>Output {a.outputIndex}</>
              ) : (
                <span data-testid="earlier-attempt-output">
                  Earlier attempt{a.attemptId ? ` ${a.attemptId}` : ""}, output {a.outputIndex}
                </span>
              )}
              : <span title={`${a.sizeBytes} bytes`}>{formatBytes(a.sizeBytes)}</span>
              <OutputLinks asset={a} />
              {a.publishedAt ? (
                <>
                  {" "}
                  · published <Time at={a.publishedAt} />
                </>
              ) : null}
              {a.keptByProductAt ? (
                <>
                  {" "}
                  · kept by the product on <Time at={a.keptByProductAt} />
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
