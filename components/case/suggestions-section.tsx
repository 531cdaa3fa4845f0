"use client";

import Link from "next/link";
import { useState, useTransition } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmStep } from "@/components/ui/confirm-step";
import { Money } from "@/components/ui/money";
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
 * reviewer picks one, with the match prefilled as evidence, and confirms; the attachment is the
 * ordinary reconcile decision, and checking the job's status the ordinary approval, taken in the
 * same step (decision 061).
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
            <SuggestionItem
              key={suggestion.id}
              detail={detail}
              suggestion={suggestion}
              canCheck={can(user.roles, "case:approve")}
              onChanged={onChanged}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

function SuggestionItem({
  detail,
  suggestion,
  canCheck,
  onChanged,
}: {
  detail: CaseDetail;
  suggestion: Suggestion;
  canCheck: boolean;
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
        <SuggestionForm
          detail={detail}
          suggestion={suggestion}
          matched={matched}
          canCheck={canCheck}
          onChanged={onChanged}
        />
      )}
    </li>
  );
}

function SuggestionForm({
  detail,
  suggestion,
  matched,
  canCheck,
  onChanged,
}: {
  detail: CaseDetail;
  suggestion: Suggestion;
  matched: string;
  canCheck: boolean;
  onChanged: () => void;
}) {
  const [result, setResult] = useState<ActionResult<unknown> | null>(null);
  const [pending, startTransition] = useTransition();
  const [evidence, setEvidence] = useState(`Matched by: ${matched} (confidence ${suggestion.confidence}%).`);
  const [confirming, setConfirming] = useState(false);
  const fieldId = `suggestion-${suggestion.id}-evidence`;
  const job = suggestion.providerJobId ?? "";
  const held = <Money micros={detail.heldMicros} currency={detail.currency} />;
  const confirm = () =>
    startTransition(async () => {
      // Checking the job's status cannot spend money, so it rides on the same evidence (decision 061).
      const answer = await confirmSuggestionAction({
        caseId: detail.id,
        input: { suggestionId: suggestion.id, evidence, ...(canCheck ? { check: true } : {}) },
      });
      setResult(answer);
      if (answer.ok) onChanged();
    });
  return (
    <form
      aria-label={`Use job ${job}`}
      className="mt-2"
      onSubmit={(event) => {
        event.preventDefault();
        setResult(null);
        setConfirming(true);
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
        value={evidence}
        onChange={(event) => setEvidence(event.target.value)}
        disabled={confirming}
        className="mt-1 w-full rounded border border-slate-400 px-2 py-1 text-sm"
      />
      {confirming ? (
        <div className="mt-2" data-testid="suggestion-confirm">
          <ConfirmStep
            title={canCheck ? "Confirm: attach this job and check its status" : "Confirm: attach this job"}
            confirmLabel={canCheck ? "Attach and check" : "Attach job"}
            pending={pending}
            result={result}
            onConfirm={confirm}
            onBack={() => {
              setConfirming(false);
              if (result !== null && !result.ok) onChanged();
            }}
          >
            Attaches provider job <code>{job}</code> to this case
            {canCheck ? " and queues status checks of it for the worker" : "; the case becomes a job to check"}. Nothing
            is bought. Money on hold stays held until the outcome is known: {held}.
          </ConfirmStep>
        </div>
      ) : (
        <Button type="submit" className="mt-2">
          {canCheck ? "Attach this job and check its status…" : "Use this job…"}
        </Button>
      )}
    </form>
  );
}
