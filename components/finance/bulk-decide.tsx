"use client";

import { useRouter } from "next/navigation";
import { useCallback, useState, useTransition } from "react";
import { BulkJobPanel } from "@/components/bulk/bulk-job-panel";
import { BulkPreviewStep } from "@/components/bulk/bulk-preview";
import { Button } from "@/components/ui/button";
import { fieldError, SelectField, TextAreaField } from "@/components/ui/form";
import { moneyText } from "@/components/ui/money";
import { dryRunHoldBulkAction, startHoldBulkJobAction } from "@/lib/actions/bulk-job-actions";
import type { ActionResult } from "@/lib/actions/safe-action";
import type { BulkPace } from "@/lib/domain/bulk-jobs";
import type { HoldBulkVerb } from "@/lib/domain/hold-bulk";
import type { HoldBulkDryRun } from "@/lib/services/bulk-job/bulk-holds";
import type { HoldBulkDryRunInput } from "@/lib/validation/hold-bulk";

const VERB_WORDS: Record<HoldBulkVerb, { label: string; confirm: string; hint: string }> = {
  settle: {
    label: "Settle each completed job's hold in full",
    confirm: "Settle",
    hint: "Only holds whose job the provider completed; each is charged its whole amount.",
  },
  release: {
    label: "Release each hold whose send bought nothing",
    confirm: "Release",
    hint: "Only holds whose send is known to have failed, been refused or never run.",
  },
};

/**
 * Finance's bulk decision on resolved cases' open holds (decision 065): a dry run lists what would
 * be settled or released and what is skipped and why (an unknown outcome above all, rule 18);
 * confirming starts a tracked job that decides each hold through the single-hold service.
 */
export function BulkDecide({ producer }: { producer?: string }) {
  const router = useRouter();
  const [verb, setVerb] = useState<HoldBulkVerb>("settle");
  const [note, setNote] = useState("");
  const [evidence, setEvidence] = useState("");
  const [pace, setPace] = useState<BulkPace>("steady");
  const [preview, setPreview] = useState<(HoldBulkDryRun & { request: HoldBulkDryRunInput }) | null>(null);
  const [result, setResult] = useState<ActionResult<unknown> | null>(null);
  const [jobId, setJobId] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  const words = VERB_WORDS[verb];

  function dryRun() {
    setJobId(null);
    const request: HoldBulkDryRunInput = {
      action: { verb, note, evidence },
      target: { kind: "needs_decision", ...(producer ? { producer } : {}) },
    };
    startTransition(async () => {
      const answer = await dryRunHoldBulkAction(request);
      setResult(answer);
      setPreview(answer.ok ? { ...answer.data, request } : null);
    });
  }

  function start(previewed: HoldBulkDryRun & { request: HoldBulkDryRunInput }) {
    startTransition(async () => {
      const answer = await startHoldBulkJobAction({ ...previewed.request, token: previewed.token, pace });
      setResult(answer);
      if (answer.ok) {
        setPreview(null);
        setJobId(answer.data.jobId);
      }
    });
  }

  const ended = useCallback(() => router.refresh(), [router]);
  const holds = (n: number) => `${n} hold${n === 1 ? "" : "s"}`;

  return (
    <section aria-labelledby="bulk-decide-heading" className="mt-4 rounded border border-sky-300 bg-sky-50 p-3 text-sm">
      <h2 id="bulk-decide-heading" className="font-semibold">
        Decide these holds together
      </h2>
      <div className="mt-2 grid gap-2 md:grid-cols-3">
        <SelectField
          id="bulk-hold-verb"
          path="action.verb"
          label="Decision"
          hint={words.hint}
          value={verb}
          onChange={(e) => {
            setVerb(e.target.value as HoldBulkVerb);
            setPreview(null);
          }}
        >
          {(Object.keys(VERB_WORDS) as HoldBulkVerb[]).map((v) => (
            <option key={v} value={v}>
              {VERB_WORDS[v].label}
            </option>
          ))}
        </SelectField>
        <TextAreaField
          id="bulk-hold-note"
          path="action.note"
          label="Accounting note for every hold"
          rows={2}
          value={note}
          error={fieldError(result, "action.note")}
          onChange={(e) => setNote(e.target.value)}
        />
        <TextAreaField
          id="bulk-hold-evidence"
          path="action.evidence"
          label="Evidence for every hold"
          rows={2}
          value={evidence}
          error={fieldError(result, "action.evidence")}
          onChange={(e) => setEvidence(e.target.value)}
        />
      </div>
      <Button className="mt-2" disabled={pending || !note.trim() || !evidence.trim()} onClick={dryRun}>
        Review what would happen
      </Button>
      <BulkPreviewStep
        preview={preview}
        title={preview ? `${words.confirm} ${holds(preview.willAct)}?` : ""}
        confirmLabel={preview ? `${words.confirm} ${preview.willAct}` : ""}
        nothingToDo="Nothing to do: no hold here allows this decision."
        pending={pending}
        result={result}
        pace={pace}
        paceId="bulk-hold-pace"
        onPace={setPace}
        onConfirm={() => preview && start(preview)}
        onBack={() => setPreview(null)}
      >
        {preview && (
          <>
            <p>
              {verb === "settle" ? "Charged" : "Released"}:{" "}
              {preview.moneyByCurrency.map((m) => moneyText(m.micros, m.currency)).join(" + ")}
            </p>
            <ul className="mt-1 max-h-48 list-disc overflow-auto break-words pl-5" data-testid="bulk-holds">
              {preview.holds.map((hold) => (
                <li key={hold.holdRef}>
                  {hold.operationId}: {moneyText(hold.amountMicros, hold.currency)}
                </li>
              ))}
            </ul>
          </>
        )}
      </BulkPreviewStep>
      {jobId && <BulkJobPanel key={jobId} jobId={jobId} noun="hold" onEnded={ended} />}
    </section>
  );
}
