import { recordAudit } from "@/lib/audit/writer";
import type { Prisma } from "@/lib/db/client";
import { planReserve } from "@/lib/domain/holds";
import { actorColumns, type Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import { reserve } from "./writer/reserve";

/**
 * Reserves an attempt's possible cost, once per attempt. Returns the micro-units newly held (0 when
 * the attempt already had its hold, e.g. an authorised replacement now being parked).
 */
export async function reserveHold(
  tx: Prisma.TransactionClient,
  actor: Principal & { kind: "api_key" },
  input: {
    caseId: string;
    episode: number;
    attemptRef: string;
    hold: { holdId: string; amountMicros: number; currency: string };
  },
): Promise<number> {
  const existing = await tx.hold.findUnique({ where: { attemptRef: input.attemptRef } });
  if (existing) {
    // The same comparison a replay makes later, so a registration is never accepted first and then
    // refused on its identical replay. Names only, as there.
    const differing = [
      existing.holdId !== input.hold.holdId && "hold.holdId",
      existing.amountMicros !== BigInt(input.hold.amountMicros) && "hold.amountMicros",
      existing.currency !== input.hold.currency && "hold.currency",
    ].filter(Boolean);
    if (differing.length > 0) {
      throw new AppError(
        "conflicting_registration",
        `This attempt already has a different hold; differing: ${differing.join(", ")}`,
      );
    }
    return 0;
  }
  const taken = await tx.hold.findUnique({
    where: { producer_holdId: { producer: actor.name, holdId: input.hold.holdId } },
  });
  if (taken) throw new AppError("conflicting_registration", "This holdId already belongs to another attempt.");
  const plan = planReserve(input.hold.amountMicros);
  if (!plan.ok) throw new AppError("invalid_request", plan.error.message);
  await reserve(tx, {
    holdId: input.hold.holdId,
    producer: actor.name,
    caseId: input.caseId,
    attemptRef: input.attemptRef,
    amountMicros: BigInt(plan.value.amountMicros),
    currency: input.hold.currency,
    actorLabel: actorColumns(actor).actorLabel,
  });
  await recordAudit(tx, {
    actor,
    kind: "hold_reserved",
    caseId: input.caseId,
    episode: input.episode,
    after: { holdId: input.hold.holdId, amountMicros: plan.value.amountMicros, currency: input.hold.currency },
  });
  return plan.value.amountMicros;
}
