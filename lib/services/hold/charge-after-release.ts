import { recordAudit } from "@/lib/audit/writer";
import type { Db, Prisma } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { planLateCharge } from "@/lib/domain/holds";
import { actorColumns, type Principal } from "@/lib/domain/principal";
import { bookLateCharge } from "./writer/late-charge";

/**
 * DESIGN rule 18: a completion proved (by the producer's report, the provider's signed webhook or a
 * status check) after the hold was released books a flagged `late_charge` entry, once per hold (the
 * ledger's (hold, kind) key), and flags the hold and its case's timeline until finance decides it.
 * Returns the micro-units charged, 0n when the hold is not released or was charged already.
 */
export async function chargeAfterRelease(
  db: Db,
  actor: Principal,
  input: { holdRef: string; how: string },
): Promise<bigint> {
  // The entry, the hold's flag and the audit row commit together (DESIGN rule 8): a crash between
  // them would leave an entry that a retry (skipping the duplicate) never flags or audits.
  return inTransaction(db, (tx) => bookIfReleased(tx, actor, input));
}

async function bookIfReleased(
  tx: Prisma.TransactionClient,
  actor: Principal,
  input: { holdRef: string; how: string },
): Promise<bigint> {
  const hold = await tx.hold.findUnique({
    where: { id: input.holdRef },
    include: { case: { select: { episode: true } }, attempt: { select: { operationRef: true } } },
  });
  if (!hold) return 0n;
  const plan = planLateCharge({ amountMicros: Number(hold.amountMicros), status: hold.status });
  if (!plan) return 0n;
  const note = `charged after release: ${input.how}`;
  const booked = await bookLateCharge(tx, { holdRef: hold.id, plan, note, actorLabel: actorColumns(actor).actorLabel });
  if (!booked) return 0n;
  await recordAudit(tx, {
    actor,
    kind: "charged_after_release",
    caseId: hold.caseId,
    operationRef: hold.attempt.operationRef,
    episode: hold.case?.episode ?? null,
    after: {
      holdId: hold.holdId,
      producer: hold.producer,
      amountMicros: plan.amountMicros,
      currency: hold.currency,
      writtenOff: hold.writtenOff,
    },
    evidence: { text: `the provider completed the job after its hold was released: ${input.how}` },
  });
  return BigInt(plan.amountMicros);
}

/**
 * The same for a case's current attempt, when a completion is proved on the case (a status check
 * in delivery, stored outputs): a hold released or written off before it is charged now, flagged.
 * One read when nothing was released.
 */
export async function chargeCaseIfReleased(db: Db, actor: Principal, caseId: string, how: string): Promise<void> {
  const [hold] = await db.$queryRaw<{ id: string }[]>`
    SELECT h.id::text FROM holds h JOIN cases c ON c.attempt_ref = h.attempt_ref
    WHERE c.id = ${caseId}::uuid AND h.status = 'released' AND h.late_charged_at IS NULL`;
  if (hold) await chargeAfterRelease(db, actor, { holdRef: hold.id, how });
}
