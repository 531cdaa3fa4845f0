import { recordAudit } from "@/lib/audit/writer";
import type { Db, Prisma } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { CHARGE_KINDS } from "@/lib/domain/holds";
import { jobMoveRefusal } from "@/lib/domain/job-move";
import { actorColumns, type Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import type { MoveJobInput } from "@/lib/validation/usage";
import { requirePermission, requireUnscoped, type UserActor } from "../access/actor";
import { keepingRefusedClaims } from "../case/job-owner";
import { disownCaseJob } from "../case/writer/disown-job";
import { reverseLineAdjustments } from "../hold/writer/adjust";
import { recordConflict } from "../job-claim/record-conflict";
import { rematchUsageLines } from "./rematch-usage-lines";
import { joinJobToSend, sendOfCase } from "./send-of-case";

type Holder = { attemptRef: string; attemptId: string; operationId: string; holdRef: string | null };

/**
 * Finance moves a job from the send that records it to the send that made it (decision 084): a
 * shop named another operation's job as its own, and the provider gave no evidence the ownership
 * rule could refuse the bare claim with. In one transaction, under both attempts' locks: the wrong
 * send forgets the job (its open case goes back to an uncertain submission, a resolved one keeps
 * its outcome and names no job), the adjustments the job's usage lines booked on its hold are
 * reversed by entries naming them, the job joins the right send through the ownership rule every
 * door shares (rule 17), and its lines then settle or correct that send's hold. Both timelines carry
 * the move as a claim conflict. Only a person who sees every producer may (decision 035).
 */
export async function moveJobToSend(db: Db, actor: Principal, input: MoveJobInput) {
  const user = requireUnscoped(requirePermission(actor, "usage:import"));
  return keepingRefusedClaims(db, user, () =>
    inTransaction(db, async (tx) => {
      const target = await sendOfCase(tx, input);
      const holder = await lockBoth(tx, input, target.send.attemptRef);
      const text = `moved by finance to the send that made it: ${input.evidence}`;
      const reversedMicros = await forgetJob(tx, user, holder, { ...input, text });
      const result = await joinJobToSend(tx, user, target, input);
      const linesMatched = await rematchUsageLines(tx, user, input);
      await recordConflict(tx, user, {
        provider: input.provider,
        providerJobId: input.providerJobId,
        door: "attach",
        outcome: "taken_from_holder",
        claimantAttemptRef: target.send.attemptRef,
        holderAttemptRef: holder.attemptRef,
        reason: text,
        evidence: { movedBy: actorColumns(user).actorLabel, reversedMicros: String(reversedMicros) },
      });
      await recordAudit(tx, {
        actor: user,
        kind: "provider_job_moved",
        before: {
          provider: input.provider,
          providerJobId: input.providerJobId,
          operationId: holder.operationId,
          attemptId: holder.attemptId,
        },
        after: {
          caseId: input.caseId,
          attemptId: target.send.attemptId,
          linesMatched,
          reversedMicros: String(reversedMicros),
        },
        evidence: { text: input.evidence },
      });
      return {
        ...result,
        provider: input.provider,
        providerJobId: input.providerJobId,
        from: { operationId: holder.operationId, attemptId: holder.attemptId },
        attemptId: target.send.attemptId,
        reversedMicros: String(reversedMicros),
        linesMatched,
      };
    }),
  );
}

/**
 * Locks the attempt that records the job and the target, in one order so two moves cannot deadlock,
 * and refuses the move as the pure rule says (lib/domain/job-move.ts). Returns the holder.
 */
async function lockBoth(tx: Prisma.TransactionClient, input: MoveJobInput, targetRef: string): Promise<Holder> {
  const owner = await tx.attempt.findUnique({
    where: { provider_providerJobId: { provider: input.provider, providerJobId: input.providerJobId } },
    select: { id: true },
  });
  const refs = [...new Set([targetRef, owner?.id].filter((ref): ref is string => ref !== undefined))].sort();
  const rows = await tx.$queryRaw<
    { id: string; attempt_id: string; operation_id: string; provider_job_id: string | null; hold_ref: string | null }[]
  >`
    SELECT a.id::text, a.attempt_id, o.operation_id, a.provider_job_id, h.id::text AS hold_ref
    FROM attempts a JOIN operations o ON o.id = a.operation_ref LEFT JOIN holds h ON h.attempt_ref = a.id
    WHERE a.id = ANY(${refs}::uuid[]) ORDER BY a.id FOR UPDATE OF a`;
  const held = rows.find((row) => row.provider_job_id === input.providerJobId && row.provider_job_id !== null);
  const target = rows.find((row) => row.id === targetRef);
  if (!target) throw new AppError("not_found", "No such attempt.");
  const [bound, gaveUp] = await Promise.all([
    tx.jobReference.findUnique({
      where: { provider_providerJobId: { provider: input.provider, providerJobId: input.providerJobId } },
      select: { attemptRef: true },
    }),
    target.hold_ref
      ? tx.ledgerEntry.count({
          where: {
            holdRef: target.hold_ref,
            reversesEntryRef: { not: null },
            usageLine: { provider: input.provider, providerJobId: input.providerJobId },
          },
        })
      : 0,
  ]);
  const refusal = jobMoveRefusal(
    {
      holderAttemptRef: held?.id ?? null,
      targetAttemptRef: targetRef,
      targetJob: target.id === held?.id ? null : target.provider_job_id,
      targetHasHold: target.hold_ref !== null,
      boundTo: bound?.attemptRef ?? null,
      targetGaveUpJobBefore: gaveUp > 0,
    },
    { job: input.providerJobId, target: target.attempt_id },
  );
  if (refusal) throw new AppError(refusal.code, refusal.message);
  if (!held) throw new AppError("lost_race", "The job's holder changed while it was read.");
  return { attemptRef: held.id, attemptId: held.attempt_id, operationId: held.operation_id, holdRef: held.hold_ref };
}

/**
 * The wrong send forgets the job: its case (if the attempt is the case's current one) through the
 * case writer, the attempt and its permit, and the job's usage lines, whose adjustments on its hold
 * are reversed and which wait, unmatched, for the send the job joins. Returns what the hold's charge moved by.
 */
async function forgetJob(
  tx: Prisma.TransactionClient,
  user: UserActor,
  holder: Holder,
  job: { provider: string; providerJobId: string; text: string },
): Promise<bigint> {
  const evidence = { text: job.text, providerJobId: job.providerJobId };
  const kase = await tx.case.findFirst({ where: { attemptRef: holder.attemptRef } });
  if (kase && kase.providerJobId === job.providerJobId) await disownCaseJob(tx, user, kase, evidence);
  await tx.attempt.update({ where: { id: holder.attemptRef }, data: { providerJobId: null } });
  await tx.sendPermit.updateMany({
    where: { attemptRef: holder.attemptRef, providerJobId: job.providerJobId },
    data: { providerJobId: null },
  });
  const lines = await tx.$queryRaw<{ id: string }[]>`
    SELECT id::text FROM usage_lines WHERE provider = ${job.provider} AND provider_job_id = ${job.providerJobId}
      AND attempt_ref = ${holder.attemptRef}::uuid ORDER BY usage_at, id FOR UPDATE`;
  let moved = 0n;
  for (const line of lines) {
    if (holder.holdRef)
      moved += await reverseLineAdjustments(tx, {
        holdRef: holder.holdRef,
        usageLineRef: line.id,
        note: `the provider's charge belongs to another send: ${job.text}`,
        actorLabel: actorColumns(user).actorLabel,
      });
    await tx.$executeRaw`UPDATE usage_lines SET attempt_ref = NULL, hold_ref = NULL, adjustment_micros = NULL,
                           unmatched_reason = 'no_job' WHERE id = ${line.id}::uuid`;
  }
  if (moved !== 0n && holder.holdRef) await auditReversal(tx, user, holder, moved, job.text);
  return moved;
}

async function auditReversal(
  tx: Prisma.TransactionClient,
  user: UserActor,
  holder: Holder,
  moved: bigint,
  text: string,
) {
  const holdRef = holder.holdRef ?? "";
  const [hold, charged] = await Promise.all([
    tx.hold.findUniqueOrThrow({
      where: { id: holdRef },
      select: { holdId: true, currency: true, caseId: true, attempt: { select: { operationRef: true } } },
    }),
    tx.ledgerEntry.aggregate({
      where: { holdRef, kind: { in: [...CHARGE_KINDS] } },
      _sum: { amountMicros: true },
    }),
  ]);
  const after = charged._sum.amountMicros ?? 0n;
  const { holdId, currency } = hold;
  await recordAudit(tx, {
    actor: user,
    kind: "charge_corrected",
    caseId: hold.caseId,
    operationRef: hold.attempt.operationRef,
    before: { holdId, chargedMicros: String(after - moved), currency },
    after: { holdId, realMicros: String(after), currency, differenceMicros: String(moved), jobMovedAway: true },
    evidence: { text },
  });
}
