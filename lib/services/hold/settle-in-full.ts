import type { Prisma } from "@/lib/db/client";
import { planSettle } from "@/lib/domain/holds";
import { bookEntries } from "./book-entries";

/**
 * A completion the provider reported makes the charge certain (rule 7): the hold is settled for its
 * whole amount, once. Returns the amount settled, or 0n when the hold was no longer held (finance,
 * or an earlier report, decided it already; the ledger keeps that decision).
 */
export async function settleInFull(
  tx: Prisma.TransactionClient,
  input: { holdRef: string; note: string; actorLabel: string },
): Promise<bigint> {
  const hold = await tx.hold.findUnique({ where: { id: input.holdRef } });
  if (hold?.status !== "held") return 0n;
  const plan = planSettle({ amountMicros: Number(hold.amountMicros), status: "held" }, Number(hold.amountMicros));
  if (!plan.ok) throw plan.error;
  const { count } = await tx.hold.updateMany({
    where: { id: hold.id, status: "held", amountMicros: hold.amountMicros },
    data: {
      status: plan.value.status,
      settledMicros: hold.amountMicros,
      resolvedAt: new Date(),
      decisionNote: input.note,
    },
  });
  if (count === 0) return 0n;
  await bookEntries(tx, {
    holdRef: hold.id,
    entries: plan.value.entries,
    note: input.note,
    actorLabel: input.actorLabel,
  });
  return hold.amountMicros;
}
