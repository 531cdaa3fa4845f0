import Link from "next/link";
import { stageLabel } from "@/components/ui/labels";
import { Money } from "@/components/ui/money";
import { Time } from "@/components/ui/time";
import type { ReplacementRequestItem } from "@/lib/services/replacement/list-replacement-requests";
import { ReplacementDecision } from "./replacement-decision";

/**
 * Requests for a new paid generation. Four-eyes (section 6): on one's own request the decision
 * controls are not offered at all, and the service refuses it anyway.
 */
export function ReplacementRequests({
  items,
  viewerId,
  canDecide,
}: {
  items: ReplacementRequestItem[];
  viewerId: string;
  canDecide: boolean;
}) {
  return (
    <ul className="mt-3 grid gap-3">
      {items.map((request) => {
        const own = request.requestedById === viewerId;
        return (
          <li
            key={request.id}
            className="rounded border border-slate-300 bg-white p-3"
            data-testid="replacement-request"
            aria-labelledby={`rr-${request.id}`}
          >
            <div className="flex flex-wrap items-baseline justify-between gap-2">
              <h3 id={`rr-${request.id}`} className="font-semibold">
                Replacement for{" "}
                <Link href={`/cases/${request.caseId}`} className="text-brand underline">
                  {request.operationId}
                </Link>
              </h3>
              <p className="text-sm">
                New hold <Money micros={request.amountMicros} currency={request.currency} />
                {request.originalHold ? (
                  <span className="text-slate-700">
                    {" "}
                    on top of the original{" "}
                    <Money micros={request.originalHold.amountMicros} currency={request.currency} /> (
                    {request.originalHold.status})
                  </span>
                ) : null}
              </p>
            </div>
            <dl className="mt-2 grid grid-cols-[9rem_1fr] gap-y-1 text-sm">
              <dt className="text-slate-700">Provider / model</dt>
              <dd>
                {request.provider} · {request.model} · {stageLabel(request.stage)}
              </dd>
              <dt className="text-slate-700">Requested by</dt>
              <dd>
                {request.requestedBy}
                {own ? <strong className="ml-1">(you)</strong> : null} on <Time at={request.createdAt} />
              </dd>
              <dt className="text-slate-700">Expires</dt>
              <dd>
                {request.expired ? <strong className="text-red-800">Expired </strong> : null}
                <Time at={request.expiresAt} />
              </dd>
              <dt className="text-slate-700">Reviewer&apos;s evidence</dt>
              <dd className="break-words whitespace-pre-wrap">{request.evidence}</dd>
            </dl>
            {own ? (
              <p className="mt-2 text-sm text-slate-700">
                You asked for this replacement, so another finance user must decide it.
              </p>
            ) : canDecide ? (
              <ReplacementDecision request={request} />
            ) : (
              <p className="mt-2 text-sm text-slate-700">Your roles do not include authorising replacements.</p>
            )}
          </li>
        );
      })}
    </ul>
  );
}
