import { recordAudit } from "@/lib/audit/writer";
import type { Db, Prisma } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import type { AttachUnexplainedInput } from "@/lib/validation/usage";
import { requirePermission, requireUnscoped } from "../access/actor";
import { keepingRefusedClaims } from "../case/job-owner";
import { reconcileInTransaction } from "../case/reconcile-case";
import { attachChargeToEarlierSend } from "./attach-charge-to-earlier-send";
import { lockOpenCharge, resolveListedJob } from "./open-charge";
import { rematchUsageLines } from "./rematch-usage-lines";

/**
 * Finance attaches a job no operation owned to the send that created it (decisions 074, 080). To
 * the uncertain submission of a parked case (the attempt named, or the case's current one) it is
 * the ordinary reconcile decision on that case (same checks, transition, decision row and audit);
 * to an earlier send of an operation whose case went on without its job, the job is recorded on
 * that attempt and the case stays where it is. Either way the ownership rule every door shares
 * (rule 17) refuses a job another attempt owns or the provider's evidence ties elsewhere, and a
 * refused claim is kept after the rollback (decision 039). In the same transaction the listed job
 * is resolved and the job's usage lines are matched to the attempt's hold, which settles, is
 * corrected, or is charged after its release, at the provider's charge (decision 073, rule 18).
 * The charge names no producer, so only a person who sees every producer may (decision 035).
 */
export async function attachUnexplainedCharge(db: Db, actor: Principal, input: AttachUnexplainedInput) {
  const user = requireUnscoped(requirePermission(actor, "usage:import"));
  return keepingRefusedClaims(db, user, () =>
    inTransaction(db, async (tx) => {
      const charge = await lockOpenCharge(tx, input);
      const target = await attachTarget(tx, input);
      const result = target.earlier
        ? await attachChargeToEarlierSend(tx, user, target.send, input.providerJobId).then(() => ({
            caseId: input.caseId,
            stage: target.stage,
            state: target.state,
          }))
        : await reconcileInTransaction(tx, user, input.caseId, {
            verdict: "attach",
            providerJobId: input.providerJobId,
            evidence: input.evidence,
          });
      if (charge.listedJob !== null)
        await resolveListedJob(tx, user, charge.listedJob, {
          resolution: "attached",
          reason: input.evidence,
          attemptRef: target.send.attemptRef,
        });
      const matched = await rematchUsageLines(tx, user, input);
      await recordAudit(tx, {
        actor: user,
        kind: "unexplained_charge_attached",
        // On the case's timeline when the case itself did not move (its reconcile decision is there otherwise).
        ...(target.earlier ? { caseId: input.caseId, episode: target.episode } : {}),
        after: {
          provider: input.provider,
          providerJobId: input.providerJobId,
          caseId: input.caseId,
          attemptId: target.send.attemptId,
          caseWent: target.earlier ? "stayed" : "reconciled",
          linesMatched: matched,
          listed: charge.listedJob !== null,
        },
        evidence: { text: input.evidence },
      });
      return { ...result, provider: input.provider, providerJobId: input.providerJobId, linesMatched: matched };
    }),
  );
}

/**
 * Which attempt the job joins, and how: the case's current attempt unless another is named; the
 * reconcile decision when that is the case's open question (a parked uncertain submission, or
 * refused by the transition rules while someone works on it), else the earlier-send path.
 */
async function attachTarget(tx: Prisma.TransactionClient, input: AttachUnexplainedInput) {
  const kase = await tx.case.findUnique({
    where: { id: input.caseId },
    select: { provider: true, operationRef: true, attemptRef: true, stage: true, state: true, episode: true },
  });
  if (!kase) throw new AppError("not_found", "No such case.");
  if (kase.provider !== input.provider)
    throw new AppError("invalid_request", `That case's submission went to ${kase.provider}, not ${input.provider}.`);
  const attempt = await tx.attempt.findFirst({
    where: input.attemptId ? { operationRef: kase.operationRef, attemptId: input.attemptId } : { id: kase.attemptRef },
    select: { id: true, attemptId: true, provider: true },
  });
  if (!attempt)
    throw new AppError("not_found", `That case's operation has no attempt ${input.attemptId ?? ""}.`.trim());
  if (attempt.provider !== input.provider)
    throw new AppError(
      "invalid_request",
      `Attempt ${attempt.attemptId} went to ${attempt.provider}, not ${input.provider}.`,
    );
  const send = { caseId: input.caseId, attemptRef: attempt.id, attemptId: attempt.attemptId, provider: input.provider };
  const earlier = attempt.id !== kase.attemptRef || kase.state === "resolved";
  return { send, earlier, stage: kase.stage, state: kase.state, episode: kase.episode };
}
