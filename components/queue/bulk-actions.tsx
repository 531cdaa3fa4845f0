"use client";

import { useRouter } from "next/navigation";
import { useCallback, useState, useTransition } from "react";
import { BulkJobPanel } from "@/components/bulk/bulk-job-panel";
import { BulkPreviewStep } from "@/components/bulk/bulk-preview";
import { Button } from "@/components/ui/button";
import { fieldError, SelectField, TextAreaField } from "@/components/ui/form";
import { BULK_VERB_LABEL } from "@/components/ui/labels";
import { startCaseBulkJobAction } from "@/lib/actions/bulk-job-actions";
import { dryRunBulkAction } from "@/lib/actions/queue-actions";
import type { ActionResult } from "@/lib/actions/safe-action";
import type { BulkPace } from "@/lib/domain/bulk-jobs";
import type { BulkAction, BulkVerb } from "@/lib/domain/bulk-verbs";
import { formatMicros } from "@/lib/domain/money";
import type { BulkDryRun } from "@/lib/services/case/bulk-cases";
import type { BulkTarget } from "@/lib/validation/bulk";
import type { ListCasesQuery } from "@/lib/validation/list-cases";

/** A dry run's answer with the request it answered, which is what confirming executes. */
type Previewed = BulkDryRun & { request: { action: BulkAction; target: BulkTarget } };

/**
 * The queue's bulk bar: one verb the user may use, for the rows picked or every case of the view.
 * A dry run comes first and shows the count, the money and the cases that would be skipped with
 * their reasons; confirming starts a tracked job of exactly that preview at the pace chosen
 * (decision 065), whose panel shows its progress, can cancel the rest, and lists what was skipped.
 */
export function BulkActions({
  verbs,
  assignees,
  selectedIds,
  filter,
  onDone,
}: {
  verbs: BulkVerb[];
  assignees: { id: string; name: string }[];
  selectedIds: string[];
  filter: ListCasesQuery;
  onDone: () => void;
}) {
  const router = useRouter();
  const [verb, setVerb] = useState<BulkVerb>(verbs[0] ?? "note");
  const [allMatching, setAllMatching] = useState(false);
  const [text, setText] = useState("");
  const [assigneeId, setAssigneeId] = useState("");
  const [preview, setPreview] = useState<Previewed | null>(null);
  const [result, setResult] = useState<ActionResult<BulkDryRun | { jobId: string }> | null>(null);
  const [jobId, setJobId] = useState<string | null>(null);
  const [pace, setPace] = useState<BulkPace>("steady");
  const [pending, startTransition] = useTransition();

  const { cursor: _c, limit: _l, sort: _s, ...view } = filter;
  const target = allMatching
    ? ({ kind: "filter", filter: view } as const)
    : ({ kind: "ids", caseIds: selectedIds } as const);
  const action: BulkAction =
    verb === "assign"
      ? { verb, assigneeId: assigneeId || null }
      : verb === "note"
        ? { verb, text }
        : { verb, evidence: text };
  const words = BULK_VERB_LABEL[verb];
  const nothingPicked = !allMatching && selectedIds.length === 0;
  const needsText = verb !== "assign" && text.trim() === "";

  function dryRun() {
    setJobId(null);
    // Confirming sends this very request again: rows picked or text typed afterwards change nothing.
    const request = { action, target };
    startTransition(async () => {
      const answer = await dryRunBulkAction({ mode: "dry_run", ...request });
      setResult(answer);
      setPreview(answer.ok ? { ...answer.data, request } : null);
    });
  }

  function execute(previewed: Previewed) {
    startTransition(async () => {
      const answer = await startCaseBulkJobAction({
        mode: "execute",
        ...previewed.request,
        token: previewed.token,
        pace,
      });
      setResult(answer);
      if (answer.ok) {
        setPreview(null);
        setJobId(answer.data.jobId);
        setText("");
      }
    });
  }

  // The queue is read again once the job ends, so the rows show what it did.
  const ended = useCallback(() => {
    onDone();
    router.refresh();
  }, [onDone, router]);

  const money = (held: BulkDryRun["heldByCurrency"]) =>
    held.map((m) => formatMicros(m.micros, m.currency)).join(" + ") || "none";

  return (
    <section aria-labelledby="bulk-heading" className="mt-4 rounded border border-sky-300 bg-sky-50 p-3 text-sm">
      <h2 id="bulk-heading" className="font-semibold">
        Act on several cases
      </h2>
      <fieldset className="mt-2 flex flex-wrap items-center gap-4">
        <legend className="sr-only">Which cases</legend>
        <label className="flex items-center gap-2">
          <input type="radio" name="bulk-target" checked={!allMatching} onChange={() => setAllMatching(false)} />
          the {selectedIds.length} selected on this page
        </label>
        <label className="flex items-center gap-2">
          <input type="radio" name="bulk-target" checked={allMatching} onChange={() => setAllMatching(true)} />
          every case matching this view
        </label>
      </fieldset>
      {nothingPicked && !preview ? (
        // Folded until there is something to act on, so the queue's rows stay on the first screen.
        <p className="mt-1 text-slate-700">
          Pick rows (<kbd>x</kbd> or their boxes) or every case matching this view to choose what to do.
        </p>
      ) : (
        <>
          <div className="mt-2 grid gap-2 md:grid-cols-2">
            <SelectField
              id="bulk-verb"
              path="action.verb"
              label="Action"
              hint={words.explains}
              value={verb}
              onChange={(e) => {
                setVerb(e.target.value as BulkVerb);
                setPreview(null);
              }}
            >
              {verbs.map((v) => (
                <option key={v} value={v}>
                  {BULK_VERB_LABEL[v].label}
                </option>
              ))}
            </SelectField>
            {verb === "assign" ? (
              <SelectField
                id="bulk-assignee"
                path="action.assigneeId"
                label="Assign to"
                value={assigneeId}
                error={fieldError(result, "action.assigneeId")}
                onChange={(e) => setAssigneeId(e.target.value)}
              >
                <option value="">Nobody (take the cases back)</option>
                {assignees.map((a) => (
                  <option key={a.id} value={a.id}>
                    {a.name}
                  </option>
                ))}
              </SelectField>
            ) : (
              <TextAreaField
                id="bulk-text"
                path={verb === "note" ? "action.text" : "action.evidence"}
                label={verb === "note" ? "Note for every case" : "Evidence for every case"}
                rows={2}
                value={text}
                error={fieldError(result, verb === "note" ? "action.text" : "action.evidence")}
                onChange={(e) => setText(e.target.value)}
              />
            )}
          </div>
          <Button className="mt-2" disabled={pending || nothingPicked || needsText} onClick={dryRun}>
            Review what would happen
          </Button>
          <BulkPreviewStep
            preview={preview}
            title={preview ? `${words.confirm} ${preview.willAct} case${preview.willAct === 1 ? "" : "s"}?` : ""}
            confirmLabel={preview ? `${words.confirm} ${preview.willAct}` : ""}
            nothingToDo="Nothing to do: no case here allows this action."
            danger={verb === "accept_failure" || verb === "reject"}
            pending={pending}
            result={result}
            pace={pace}
            paceId="bulk-pace"
            onPace={setPace}
            onConfirm={() => preview && execute(preview)}
            onBack={() => setPreview(null)}
          >
            {preview && (
              <>
                <p>Money on hold involved: {money(preview.heldByCurrency)}</p>
                <p>
                  {preview.matchingMore ? `More than ${preview.matching.toLocaleString("en-US")}` : preview.matching}{" "}
                  matched
                  {preview.beyondLimit > 0
                    ? `; the ${preview.beyondLimit} newest are left for another round (the limit is ${preview.limit})`
                    : ""}
                  . Each case gets its own decision and audit entry; only these cases, as they are now, are acted on.
                </p>
              </>
            )}
          </BulkPreviewStep>
        </>
      )}
      {jobId && <BulkJobPanel key={jobId} jobId={jobId} noun="case" onEnded={ended} />}
    </section>
  );
}
