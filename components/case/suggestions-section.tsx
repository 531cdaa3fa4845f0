"use client";

import Link from "next/link";
import { useState, useTransition } from "react";
import { Button } from "@/components/ui/button";
import { FormError } from "@/components/ui/form-error";
import { Time } from "@/components/ui/time";
import type { ActionResult } from "@/lib/actions/safe-action";
import { confirmSuggestionAction } from "@/lib/actions/suggestion-actions";
import { can, type Role } from "@/lib/domain/roles";
import type { CaseDetail } from "@/lib/services/case/get-case";

type Suggestion = CaseDetail["suggestions"][number];

const ATTRIBUTE_LABEL: Record<string, string> = {
  client_reference: "client reference",
  fingerprint: "request fingerprint",
  model: "model",
  submitted_within_60s: "created within 60 s of submission",
};

const label = (attribute: string) => ATTRIBUTE_LABEL[attribute] ?? attribute;

/**
 * Jobs an automated search found near the uncertain submission. Nothing is attached until a
 * reviewer picks one and writes why; the attachment is the ordinary reconcile decision.
 */
export function SuggestionsSection({
  detail,
  user,
  onChanged,
}: {
  detail: CaseDetail;
  user: { roles: Role[] };
  onChanged: () => void;
}) {
  if (detail.stage !== "submission_uncertain" || detail.state !== "parked") return null;
  if (!can(user.roles, "case:reconcile")) return null;
  const open = detail.suggestions.filter((s) => s.status === "open");
  return (
    <section aria-labelledby="suggestions-heading" className="rounded border border-slate-300 bg-white p-4">
      <h2 id="suggestions-heading" className="font-semibold">
        Suggested provider jobs
      </h2>
      <p className="mt-1 text-sm text-slate-700">
        Found by searching the provider around the submission time. Suggestions only: check the job at the provider
        before using it.
      </p>
      {open.length === 0 ? (
        <p className="mt-2 text-sm text-slate-700">No suggestions yet.</p>
      ) : (
        <ul className="mt-2 space-y-3">
          {open.map((suggestion) => (
            <SuggestionItem key={suggestion.id} caseId={detail.id} suggestion={suggestion} onChanged={onChanged} />
          ))}
        </ul>
      )}
    </section>
  );
}

function SuggestionItem({
  caseId,
  suggestion,
  onChanged,
}: {
  caseId: string;
  suggestion: Suggestion;
  onChanged: () => void;
}) {
  const matched = suggestion.matched.map(label).join(", ") || "nothing";
  return (
    <li className="rounded border border-slate-200 p-3 text-sm" data-testid="suggestion">
      <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1">
        <dt className="text-slate-700">Job</dt>
        <dd className="break-all font-mono">{suggestion.providerJobId ?? "another producer's operation's job"}</dd>
        <dt className="text-slate-700">Confidence</dt>
        <dd className="font-medium">{suggestion.confidence}%</dd>
        <dt className="text-slate-700">Matched</dt>
        <dd>{matched}</dd>
        <dt className="text-slate-700">Provider status</dt>
        <dd>{suggestion.providerStatus}</dd>
        <dt className="text-slate-700">Job created at the provider</dt>
        <dd>
          <Time at={suggestion.jobCreatedAt} />
        </dd>
      </dl>
      {suggestion.ownedElsewhere ? (
        <p className="mt-2 text-red-900" data-testid="suggestion-owned">
          Already recorded for{" "}
          {suggestion.ownerCaseId ? (
            <Link href={`/cases/${suggestion.ownerCaseId}`} className="underline">
              operation <span className="font-mono">{suggestion.ownerOperationId}</span>
            </Link>
          ) : (
            "another producer's operation"
          )}
          : one provider job belongs to one operation, so it cannot be used here.
        </p>
      ) : (
        <SuggestionForm caseId={caseId} suggestion={suggestion} matched={matched} onChanged={onChanged} />
      )}
    </li>
  );
}

function SuggestionForm({
  caseId,
  suggestion,
  matched,
  onChanged,
}: {
  caseId: string;
  suggestion: Suggestion;
  matched: string;
  onChanged: () => void;
}) {
  const [result, setResult] = useState<ActionResult<unknown> | null>(null);
  const [pending, startTransition] = useTransition();
  const fieldId = `suggestion-${suggestion.id}-evidence`;
  return (
    <form
      aria-label={`Use job ${suggestion.providerJobId ?? ""}`}
      className="mt-2"
      onSubmit={(event) => {
        event.preventDefault();
        const evidence = String(new FormData(event.currentTarget).get("evidence") ?? "");
        startTransition(async () => {
          const answer = await confirmSuggestionAction({
            caseId,
            input: { suggestionId: suggestion.id, evidence },
          });
          setResult(answer);
          if (answer.ok) onChanged();
        });
      }}
    >
      <label htmlFor={fieldId} className="block font-medium">
        Evidence
      </label>
      <textarea
        id={fieldId}
        name="evidence"
        required
        rows={2}
        defaultValue={`Matched by: ${matched} (confidence ${suggestion.confidence}%).`}
        className="mt-1 w-full rounded border border-slate-400 px-2 py-1 text-sm"
      />
      <Button type="submit" className="mt-2" disabled={pending}>
        {pending ? "Saving…" : "Use this job"}
      </Button>
      <FormError result={result} listIssues />
    </form>
  );
}
