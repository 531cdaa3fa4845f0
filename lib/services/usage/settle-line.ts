import type { Prisma } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { type RealChargeOutcome, settleAtRealCharge } from "../hold/settle-at-real-charge";

/**
 * A usage line already stored with its hold's reference settles or corrects that hold at the
 * provider's charge (decision 073), or waits for the send's outcome (decision 077); a line the hold cannot
 * take (another currency) goes back to unexplained with the reason. Shared by an import and by a
 * line matched later, when its job came to be owned (decision 074).
 */
export async function settleLine(
  tx: Prisma.TransactionClient,
  actor: Principal,
  input: { lineId: string; holdRef: string; currency: string; how: string },
): Promise<RealChargeOutcome> {
  const outcome = await settleAtRealCharge(tx, actor, {
    holdRef: input.holdRef,
    usageLineRef: input.lineId,
    currency: input.currency,
    how: input.how,
  });
  // What it moved the charge by is kept on the line by settleAtRealCharge; a waiting line keeps none yet (decision 077).
  if (!outcome.matched)
    await tx.$executeRaw`UPDATE usage_lines SET hold_ref = NULL, unmatched_reason = ${outcome.reason} WHERE id = ${input.lineId}::uuid`;
  return outcome;
}
