import type { Db, Prisma } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import type { ReconcileInput } from "@/lib/validation/review";
import { requirePermission, type UserActor } from "../access/actor";
import { keepingRefusedClaims, recordJobOnAttempt } from "./job-owner";
import { lastCheckFoundJobUnknown } from "./last-attempt-findings";
import { noJobAllowedFrom } from "./no-job-from";
import { requireReadableJobId } from "./provider-job-id";
import { recordDecision } from "./record-decision";
import { loadCase, transitionCase } from "./transition-case";

/**
 * An uncertain submission leaves only through evidence: a discovered job ID (-> polling) or proof
 * that no job exists (-> generation_failed), the latter only once the provider has had time to
 * show a late job (`noJobAllowedFrom`). A job to check whose last status check the provider
 * answered "not found" is reconciled the same way (decision 068): a different job takes its place,
 * through the same ownership rule (rule 17), or no job exists, at the same moment. The finding is
 * read here, in the transaction, and handed to the pure decision.
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
    inTransaction(db, (tx) => reconcileInTransaction(tx, user, caseId, input, options)),
  );
}

/**
 * The reconcile decision itself, inside the caller's transaction, for a caller that authorised the
 * person already: a reviewer's reconcile above, or finance attaching a job no operation owned
 * (decision 074). The same checks, transition, decision row and ownership rule (rule 17) either way.
 */
export async function reconcileInTransaction(
  tx: Prisma.TransactionClient,
  user: UserActor,
  caseId: string,
  input: ReconcileInput,
  options: { now?: Date } = {},
) {
  const row = await loadCase(tx, caseId, user);
  if (input.verdict === "attach") requireReadableJobId(row.provider, input.providerJobId);
  const jobUnknown = await lastCheckFoundJobUnknown(tx, row);
  if (input.verdict === "no_job") {
    const earliest = (await noJobAllowedFrom(tx, row)).getTime();
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
  // The job the provider did not know stays named in the evidence of what replaced or denied it.
  const unknownJob = jobUnknown && row.providerJobId ? { unknownProviderJobId: row.providerJobId } : {};
  const result = await transitionCase(tx, {
    row,
    actor: user,
    command,
    findings: jobUnknown ? { jobUnknown: true } : {},
    evidence: {
      text: input.evidence,
      ...(input.verdict === "attach" ? { providerJobId: input.providerJobId } : {}),
      ...unknownJob,
    },
    // An attached job answers the submission the deadline was about: a job to check has no
    // submission deadline, so its flag goes and nothing escalates on it later (decision 061).
    ...(input.verdict === "attach"
      ? { extra: { escalatedAt: null, escalationReason: null, retryDeadline: null } }
      : {}),
  });
  await recordDecision(tx, { row, actor: user, kind: command.type, evidence: input.evidence });
  if (input.verdict === "attach") {
    // The attempt's job is replaced, not added to: rule 11 keeps one job per attempt, and a job
    // another operation owns is refused here exactly as for an uncertain submission.
    await recordJobOnAttempt(tx, user, {
      attemptRef: row.attemptRef,
      provider: row.provider,
      providerJobId: input.providerJobId,
    });
  }
  return { caseId, stage: result.after.stage, state: result.after.state };
}
