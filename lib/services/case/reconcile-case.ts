import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { settledDeadline } from "@/lib/domain/escalation";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import type { ReconcileInput } from "@/lib/validation/review";
import { requirePermission } from "../access/actor";
import { noJobSettlingSeconds } from "../admin/provider-settings";
import { keepingRefusedClaims, recordJobOnAttempt } from "./job-owner";
import { requireReadableJobId } from "./provider-job-id";
import { recordDecision } from "./record-decision";
import { loadCase, transitionCase } from "./transition-case";

/**
 * An uncertain submission leaves only through evidence: a discovered job ID (-> polling) or proof
 * that no job exists (-> generation_failed), the latter only once the provider has had time to
 * show a late job: the settling period of the case's provider (provider_settings, else the
 * adapter's default), read when the verdict is recorded so an admin's change applies at once.
 */
export async function reconcileCase(
  db: Db,
  actor: Principal,
  caseId: string,
  input: ReconcileInput,
  options: { now?: Date } = {},
) {
  const user = requirePermission(actor, "case:reconcile");
  return keepingRefusedClaims(db, user, () =>
    inTransaction(db, async (tx) => {
      const row = await loadCase(tx, caseId, user);
      if (input.verdict === "attach") requireReadableJobId(row.provider, input.providerJobId);
      if (input.verdict === "no_job") {
        // A case a send permit parked has its settling period in its retry deadline already (the send
        // deadline plus the period, decision 036): "no job exists" can be recorded once it is overdue.
        const permitted = await tx.sendPermit.findUnique({
          where: { attemptRef: row.attemptRef },
          select: { id: true },
        });
        const deadlineIncludesSettling = permitted !== null && row.retryDeadline !== null;
        const earliest = settledDeadline({
          deadline: row.retryDeadline ?? row.submittedAt ?? row.openedAt,
          deadlineIncludesSettling,
          settlingSeconds: deadlineIncludesSettling ? 0 : await noJobSettlingSeconds(tx, row.provider),
        }).getTime();
        const now = options.now ?? new Date();
        if (now.getTime() < earliest) {
          throw new AppError(
            "too_early",
            `A late job may still appear; "no job exists" can be recorded from ${new Date(earliest).toISOString()}.`,
          );
        }
      }
      const command =
        input.verdict === "attach"
          ? ({ type: "reconcile_attach", providerJobId: input.providerJobId, evidence: input.evidence } as const)
          : ({ type: "reconcile_no_job", evidence: input.evidence } as const);
      const result = await transitionCase(tx, {
        row,
        actor: user,
        command,
        evidence: {
          text: input.evidence,
          ...(input.verdict === "attach" ? { providerJobId: input.providerJobId } : {}),
        },
        // An attached job answers the submission the deadline was about: a job to check has no
        // submission deadline, so its flag goes and nothing escalates on it later (decision 061).
        ...(input.verdict === "attach"
          ? { extra: { escalatedAt: null, escalationReason: null, retryDeadline: null } }
          : {}),
      });
      await recordDecision(tx, { row, actor: user, kind: command.type, evidence: input.evidence });
      if (input.verdict === "attach") {
        await recordJobOnAttempt(tx, user, {
          attemptRef: row.attemptRef,
          provider: row.provider,
          providerJobId: input.providerJobId,
        });
      }
      return { caseId, stage: result.after.stage, state: result.after.state };
    }),
  );
}
