import type { Prisma } from "@/lib/db/client";
import { planSettle } from "@/lib/domain/holds";
import { actorColumns, type Principal } from "@/lib/domain/principal";
import { applyWaitingLines } from "./apply-waiting-lines";
import { chargeAfterRelease } from "./charge-after-release";
import { resolve } from "./writer/resolve";

/**
 * A completion the provider reported makes the charge certain (rule 7): the hold is settled for its
 * whole amount, once; a hold finance released before is charged after release instead (rule 18).
 * Returns the amount settled, or 0n when the hold was no longer held (finance, or an earlier
 * report, decided it already; the ledger keeps that decision, and a release gets its late charge).
 * Usage lines that waited for the outcome are applied after it.
 */
export async function settleCompletion(
  tx: Prisma.TransactionClient,
  actor: Principal,
  input: { holdRef: string; note: string; how: string },
): Promise<bigint> {
  const settled = await settleIfHeld(tx, { ...input, actorLabel: actorColumns(actor).actorLabel });
  if (settled === 0n) await chargeAfterRelease(tx, actor, { holdRef: input.holdRef, how: input.how });
  // The completion ends the wait of any usage line matched to the hold meanwhile (decision 077).
  await applyWaitingLines(tx, actor, { holdRef: input.holdRef });
  return settled;
}

async function settleIfHeld(
  tx: Prisma.TransactionClient,
  input: { holdRef: string; note: string; actorLabel: string },
): Promise<bigint> {
  const hold = await tx.hold.findUnique({ where: { id: input.holdRef } });
  if (hold?.status !== "held") return 0n;
  const plan = planSettle({ amountMicros: Number(hold.amountMicros), status: "held" }, Number(hold.amountMicros));
  if (!plan.ok) throw plan.error;
  const settled = await resolve(tx, {
    holdRef: hold.id,
    amountMicros: hold.amountMicros,
    plan: plan.value,
    note: input.note,
    actorLabel: input.actorLabel,
  });
  return settled ? hold.amountMicros : 0n;
}
