import { recordAudit } from "@/lib/audit/writer";
import type { Prisma } from "@/lib/db/client";
import { actorColumns, type Principal } from "@/lib/domain/principal";
import { unknownSendOutcome } from "@/lib/domain/send-outcome";
import { type HoldCharge, planUsage } from "@/lib/domain/usage";
import { releaseHeldMicros } from "../case/writer/facts";
import { chargeAfterRelease } from "./charge-after-release";
import { readSendFacts } from "./send-outcome-of-hold";
import { bookAdjustment } from "./writer/adjust";
import { resolve } from "./writer/resolve";

export type RealChargeOutcome =
  | { matched: true; waiting: false; holdId: string; before: bigint; after: bigint; adjustmentMicros: bigint }
  /** Matched to a hold still held whose send may yet complete: applied once the outcome is known (decision 077). */
  | { matched: true; waiting: true; holdId: string; why: string }
  | { matched: false; reason: "currency_differs" };

type HoldRow = {
  id: string;
  hold_id: string;
  status: HoldCharge["status"];
  amount_micros: bigint;
  currency: string;
  case_id: string | null;
  /** The case's episode, for the audit row of a settle. */
  episode: number | null;
  attempt_ref: string;
  operation_ref: string;
  charged: bigint;
  real: bigint;
};

async function readHold(tx: Prisma.TransactionClient, holdRef: string): Promise<HoldRow> {
  // The hold's row lock serialises two imports naming the same job, so each reads the other's entry.
  const [row] = await tx.$queryRaw<HoldRow[]>`
    SELECT h.id::text, h.hold_id, h.status::text AS status, h.amount_micros, h.currency, h.case_id::text,
           (SELECT c.episode FROM cases c WHERE c.id = h.case_id) AS episode, h.attempt_ref::text, a.operation_ref::text,
           (SELECT coalesce(sum(e.amount_micros), 0)::bigint FROM ledger_entries e WHERE e.hold_ref = h.id
             AND e.kind IN ('settle', 'overage', 'late_charge', 'adjustment')) AS charged,
           (SELECT coalesce(sum(u.amount_micros), 0)::bigint FROM usage_lines u WHERE u.hold_ref = h.id) AS real
    FROM holds h JOIN attempts a ON a.id = h.attempt_ref WHERE h.id = ${holdRef}::uuid FOR UPDATE OF h`;
  if (!row) throw new Error(`hold ${holdRef} vanished under its usage line`);
  return row;
}

/**
 * A usage line matched to this hold (it is already stored with the hold's reference) makes the
 * provider's own figure the charge (decision 073): a held hold settles at it (DESIGN rule 7), a
 * released one is charged after release first (rule 18), and a settled one gets the difference
 * as an adjustment entry through the money writer. A hold still held while its send's outcome is
 * unknown (rule 18: the case may yet find no job, or the job complete) is left as it is and the
 * line waits (decision 077); `applyWaitingLines` applies it once the outcome is known. Records on
 * the line what it moved the charge by. Returns what the hold was charged before (its reservation
 * while it was held) and after.
 */
export async function settleAtRealCharge(
  tx: Prisma.TransactionClient,
  actor: Principal,
  input: { holdRef: string; usageLineRef: string; currency: string; how: string },
): Promise<RealChargeOutcome> {
  const actorLabel = actorColumns(actor).actorLabel;
  let hold = await readHold(tx, input.holdRef);
  // A hold still held would have been charged its whole amount by a completion (DESIGN rule 7):
  // the difference finance reads is to that reservation, as for a hold already settled at it.
  const before = hold.status === "held" ? hold.amount_micros : hold.charged;
  const ledgerBefore = hold.charged;
  let plan = planUsage(charge(hold), input, Number(hold.real));
  if (plan.kind === "unmatched") return { matched: false, reason: plan.reason };
  if (hold.status === "held") {
    const why = unknownSendOutcome(
      await readSendFacts(tx, { id: hold.id, attemptRef: hold.attempt_ref, caseId: hold.case_id }),
    );
    if (why) return { matched: true, waiting: true, holdId: hold.hold_id, why };
  }
  if (plan.kind === "charge_after_release") {
    await chargeAfterRelease(tx, actor, { holdRef: hold.id, how: input.how });
    hold = await readHold(tx, input.holdRef);
    plan = planUsage(charge(hold), input, Number(hold.real));
  }
  const note = `the provider's charge: ${input.how}`;
  if (plan.kind === "settle") {
    // The provider's invoice decides the hold, and whatever of it is released: finance's decision,
    // made by the person who imported the line (decision 079), whoever applies it.
    const [line] = await tx.$queryRaw<{ by: string | null }[]>`
      SELECT imported_by_id::text AS by FROM usage_lines WHERE id = ${input.usageLineRef}::uuid`;
    const done = await resolve(tx, {
      holdRef: hold.id,
      amountMicros: hold.amount_micros,
      plan: plan.resolution,
      note,
      actorLabel,
      decidedById: line?.by ?? null,
    });
    if (!done) throw new Error(`hold ${hold.hold_id} changed under its row lock`);
    // As a person's settle does: the case no longer counts the hold as held (DESIGN rule 13), and
    // the hold's one resolution is audited as every other settle is (decision 079).
    if (hold.case_id) await releaseHeldMicros(tx, hold.case_id, hold.amount_micros);
    const settled = await tx.hold.findUniqueOrThrow({
      where: { id: hold.id },
      select: { settledMicros: true, releasedMicros: true },
    });
    await recordAudit(tx, {
      actor,
      kind: "hold_settled",
      caseId: hold.case_id,
      episode: hold.episode,
      operationRef: hold.operation_ref,
      before: { holdId: hold.hold_id, status: "held", amountMicros: Number(hold.amount_micros) },
      after: {
        status: "settled",
        settledMicros: Number(settled.settledMicros),
        releasedMicros: Number(settled.releasedMicros),
      },
      evidence: { text: note },
    });
  } else if (plan.kind === "adjust") {
    await bookAdjustment(tx, {
      holdRef: hold.id,
      usageLineRef: input.usageLineRef,
      amountMicros: BigInt(plan.adjustmentMicros),
      note,
      actorLabel,
    });
  }
  const after = (await readHold(tx, input.holdRef)).charged;
  await tx.$executeRaw`
    UPDATE usage_lines SET adjustment_micros = ${after - before}
    WHERE id = ${input.usageLineRef}::uuid AND adjustment_micros IS NULL`;
  if (after !== ledgerBefore)
    await recordAudit(tx, {
      actor,
      kind: "charge_corrected",
      caseId: hold.case_id,
      operationRef: hold.operation_ref,
      before: { holdId: hold.hold_id, chargedMicros: String(before), currency: hold.currency },
      after: {
        holdId: hold.hold_id,
        realMicros: String(after),
        currency: hold.currency,
        differenceMicros: String(after - before),
      },
      evidence: { text: input.how },
    });
  return { matched: true, waiting: false, holdId: hold.hold_id, before, after, adjustmentMicros: after - before };
}

function charge(hold: HoldRow): HoldCharge {
  return {
    status: hold.status,
    amountMicros: Number(hold.amount_micros),
    currency: hold.currency,
    chargedMicros: Number(hold.charged),
  };
}
