"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { Button } from "@/components/ui/button";
import { FormError } from "@/components/ui/form-error";
import { bulkApproveAction, previewBulkApproveAction } from "@/lib/actions/queue-actions";
import type { ActionResult } from "@/lib/actions/safe-action";
import { formatMicros } from "@/lib/domain/money";
import type { ListCasesQuery } from "@/lib/validation/list-cases";

type Preview = {
  matching: number;
  willApprove: number;
  limit: number;
  heldByCurrency: { currency: string; micros: number }[];
};
type Outcome = { action: string; approved: number; skipped: { caseId: string; code: string; message: string }[] };

/**
 * Bulk approval for polling or delivery cases: pick rows or "all matching", write one evidence
 * note, see the count and the money involved, then confirm. The server approves case by case.
 */
export function BulkApprove({
  stage,
  selectedIds,
  filter,
  onDone,
}: {
  stage: "polling" | "delivery";
  selectedIds: string[];
  filter: ListCasesQuery;
  onDone: () => void;
}) {
  const router = useRouter();
  const [allMatching, setAllMatching] = useState(false);
  const [evidence, setEvidence] = useState("");
  const [preview, setPreview] = useState<Preview | null>(null);
  const [result, setResult] = useState<ActionResult<Preview | Outcome> | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [pending, startTransition] = useTransition();
  const action = stage === "polling" ? "resume_poll" : "retry_delivery";
  const { cursor: _c, limit: _l, sort: _s, ...rest } = filter;
  const target = allMatching
    ? ({ kind: "filter", filter: { ...rest, stage } } as const)
    : ({ kind: "ids", caseIds: selectedIds } as const);
  const nothing = !allMatching && selectedIds.length === 0;

  function review() {
    startTransition(async () => {
      const answer = await previewBulkApproveAction({ stage, target });
      setResult(answer);
      setPreview(answer.ok ? answer.data : null);
    });
  }

  function confirm() {
    startTransition(async () => {
      const answer = await bulkApproveAction({ stage, target, evidence });
      setResult(answer);
      setPreview(null);
      if (answer.ok) {
        setOutcome(answer.data);
        setEvidence("");
        onDone();
        router.refresh();
      }
    });
  }

  return (
    <section aria-labelledby="bulk-heading" className="mt-4 rounded border border-sky-300 bg-sky-50 p-3 text-sm">
      <h2 id="bulk-heading" className="font-semibold">
        Bulk approve <code>{action}</code> for {stage} cases
      </h2>
      <div className="mt-2 flex flex-wrap items-center gap-4">
        <span>{selectedIds.length} selected on this page</span>
        <label className="flex items-center gap-2">
          <input type="checkbox" checked={allMatching} onChange={(e) => setAllMatching(e.target.checked)} />
          all parked {stage} cases matching this filter
        </label>
      </div>
      <label className="mt-2 block font-medium">
        Evidence for every approval
        <textarea
          value={evidence}
          onChange={(e) => setEvidence(e.target.value)}
          rows={2}
          className="mt-1 w-full rounded border border-slate-400 bg-white px-2 py-1"
        />
      </label>
      <Button className="mt-2" disabled={pending || nothing || evidence.trim() === ""} onClick={review}>
        Review bulk approval
      </Button>
      {preview && (
        <div role="dialog" aria-labelledby="bulk-confirm" className="mt-3 rounded border border-slate-400 bg-white p-3">
          <p id="bulk-confirm" className="font-medium">
            Approve <code>{action}</code> for {preview.willApprove} case{preview.willApprove === 1 ? "" : "s"}
            {preview.matching > preview.willApprove
              ? ` (of ${preview.matching} matching; the limit is ${preview.limit})`
              : ""}
            ?
          </p>
          <p>
            Money on hold involved:{" "}
            {preview.heldByCurrency.map((m) => formatMicros(m.micros, m.currency)).join(" + ") || "none"}
          </p>
          <p className="text-slate-700">
            Each case gets its own decision, action and audit entry. Nothing new is bought.
          </p>
          <div className="mt-2 flex gap-2">
            <Button onClick={confirm} disabled={pending || preview.willApprove === 0}>
              Approve {preview.willApprove}
            </Button>
            <Button variant="secondary" onClick={() => setPreview(null)}>
              Cancel
            </Button>
          </div>
        </div>
      )}
      {outcome && (
        <p role="status" className="mt-2">
          Approved {outcome.approved}; skipped {outcome.skipped.length}
          {outcome.skipped.length ? ` (${[...new Set(outcome.skipped.map((s) => s.code))].join(", ")})` : ""}.
        </p>
      )}
      <FormError result={result} listIssues />
    </section>
  );
}
