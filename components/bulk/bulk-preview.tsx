import type { ReactNode } from "react";
import { PaceField } from "@/components/bulk/pace-field";
import { SkippedList } from "@/components/bulk/skipped-list";
import { ConfirmStep } from "@/components/ui/confirm-step";
import { FormError } from "@/components/ui/form";
import type { ActionResult } from "@/lib/actions/safe-action";
import type { BulkPace } from "@/lib/domain/bulk-jobs";

type Skip = { caseId: string; operationId: string; code: string; message: string; at: string };

/**
 * The confirmation step every bulk form shares (decisions 032 and 065): after a dry run, either a
 * confirm box with what would be done, what would be skipped and the pace the job runs at, or a
 * plain "nothing to do" with the skipped list; before one, the last answer's error, if any.
 * The queue's case verbs and finance's hold decisions differ only in the words and the summary
 * passed in as children.
 */
export function BulkPreviewStep({
  preview,
  title,
  confirmLabel,
  nothingToDo,
  danger,
  pending,
  result,
  pace,
  paceId,
  onPace,
  onConfirm,
  onBack,
  children,
}: {
  /** The dry run's answer, or null before one (or after going back). */
  preview: { willAct: number; skipped: Skip[] } | null;
  title: string;
  confirmLabel: string;
  /** Shown instead of the confirm box when the dry run found nothing to act on. */
  nothingToDo: string;
  danger?: boolean;
  pending: boolean;
  result: ActionResult<unknown> | null;
  pace: BulkPace;
  paceId: string;
  onPace: (pace: BulkPace) => void;
  onConfirm: () => void;
  onBack: () => void;
  /** What the confirm box says will be done, above the skipped list. */
  children: ReactNode;
}) {
  if (!preview) return <FormError result={result} listIssues />;
  return (
    <div className="mt-3">
      {preview.willAct > 0 ? (
        <ConfirmStep
          title={title}
          confirmLabel={confirmLabel}
          pending={pending}
          result={result && !result.ok ? result : null}
          danger={danger}
          onConfirm={onConfirm}
          onBack={onBack}
        >
          {children}
          <SkippedList title="Will be skipped" skipped={preview.skipped} />
          <div className="mt-2 max-w-md">
            <PaceField id={paceId} value={pace} onChange={onPace} />
          </div>
        </ConfirmStep>
      ) : (
        <div className="rounded border border-slate-400 bg-white p-3">
          <p className="font-medium">{nothingToDo}</p>
          <SkippedList title="Skipped" skipped={preview.skipped} />
        </div>
      )}
    </div>
  );
}
