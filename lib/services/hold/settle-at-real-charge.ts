import { recordAudit } from "@/lib/audit/writer";
import type { Prisma } from "@/lib/db/client";
import { actorColumns, type Principal } from "@/lib/domain/principal";
import { type HoldCharge, planUsage } from "@/lib/domain/usage";
import { chargeAfterRelease } from "./charge-after-release";
import { bookAdjustment } from "./writer/adjust";
import { resolve } from "./writer/resolve";

export type RealChargeOutcome =
  | { matched: true; holdId: string; before: bigint; after: bigint; adjustmentMicros: bigint }
  | { matched: false; reason: "currency_differs" };

type HoldRow = {
  id: string;
  hold_id: string;
  status: HoldCharge["status"];
  amount_micros: bigint;
  currency: string;
  case_id: string | null;
  operation_ref: string;
  charged: bigint;
  real: bigint;
};

async function readHold(tx: Prisma.TransactionClient, holdRef: string): Promise<HoldRow> {
  // The hold's row lock serialises two imports naming the same job, so each reads the other's entry.
  const [row] = await tx.$queryRaw<HoldRow[]>`
    SELECT h.id::text, h.hold_id, h.status::text AS status, h.amount_micros, h.currency, h.case_id::text,
           a.operation_ref::text,
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
 * as an adjustment entry through the money writer. Returns what the hold was charged before (its reservation while it
 * was held) and after.
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
  if (plan.kind === "charge_after_release") {
    await chargeAfterRelease(tx, actor, { holdRef: hold.id, how: input.how });
    hold = await readHold(tx, input.holdRef);
    plan = planUsage(charge(hold), input, Number(hold.real));
  }
  const note = `the provider's charge: ${input.how}`;
  if (plan.kind === "settle") {
    const done = await resolve(tx, {
      holdRef: hold.id,
      amountMicros: hold.amount_micros,
      plan: plan.resolution,
      note,
      actorLabel,
    });
    if (!done) throw new Error(`hold ${hold.hold_id} changed under its row lock`);
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
  return { matched: true, holdId: hold.hold_id, before, after, adjustmentMicros: after - before };
}

function charge(hold: HoldRow): HoldCharge {
  return {
    status: hold.status,
    amountMicros: Number(hold.amount_micros),
    currency: hold.currency,
    chargedMicros: Number(hold.charged),
  };
}
