import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
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
  tx: Db,
  actor: Principal,
  input: { holdRef: string; how: string; costMicros?: number | null },
): Promise<bigint> {
  const hold = await tx.hold.findUnique({
    where: { id: input.holdRef },
    include: { case: { select: { episode: true } } },
  });
  if (!hold) return 0n;
  const plan = planLateCharge(
    { amountMicros: Number(hold.amountMicros), status: hold.status },
    input.costMicros ?? null,
  );
  if (!plan) return 0n;
  const note = `charged after release: ${input.how}`;
  const booked = await bookLateCharge(tx, { holdRef: hold.id, plan, note, actorLabel: actorColumns(actor).actorLabel });
  if (!booked) return 0n;
  await recordAudit(tx, {
    actor,
    kind: "charged_after_release",
    caseId: hold.caseId,
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
