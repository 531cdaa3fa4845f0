import type { Prisma } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { settleAtRealCharge } from "./settle-at-real-charge";

type Waiting = { id: string; hold_ref: string; currency: string };

/**
 * The usage lines that matched a hold while its send's outcome was unknown (decision 077), applied
 * now through the same service an import uses: a hold still held settles at the provider's figure,
 * a decided one is corrected to it. A line whose hold is still waiting stays waiting. Called where
 * the outcome becomes known: a case decision that leaves an uncertain submission or a job being
 * checked, a completion's settle, and finance's own decision on the hold. Returns how many applied.
 */
export async function applyWaitingLines(
  tx: Prisma.TransactionClient,
  actor: Principal,
  of: { caseId: string } | { holdRef: string },
): Promise<number> {
  const lines =
    "caseId" in of
      ? await tx.$queryRaw<Waiting[]>`
          SELECT u.id::text, u.hold_ref::text, u.currency FROM usage_lines u JOIN holds h ON h.id = u.hold_ref
          WHERE h.case_id = ${of.caseId}::uuid AND u.adjustment_micros IS NULL ORDER BY u.imported_at, u.id`
      : await tx.$queryRaw<Waiting[]>`
          SELECT u.id::text, u.hold_ref::text, u.currency FROM usage_lines u
          WHERE u.hold_ref = ${of.holdRef}::uuid AND u.adjustment_micros IS NULL ORDER BY u.imported_at, u.id`;
  let applied = 0;
  for (const line of lines) {
    const outcome = await settleAtRealCharge(tx, actor, {
      holdRef: line.hold_ref,
      usageLineRef: line.id,
      currency: line.currency,
      how: "a usage line that waited for the case's outcome",
    });
    if (outcome.matched && !outcome.waiting) applied++;
  }
  return applied;
}
