import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";

// Writes to a case row that are not a decision: counters and facts that neither the state nor the
// version depend on, so they never compare-and-set and never conflict with one that does.

/** A status check that decided nothing: its counter and the outputs' earliest expiry, for each case in `source`. */
export function pollCounted(source: Prisma.Sql, expiry: Date | null): Prisma.Sql {
  return Prisma.sql`counted AS (
      UPDATE cases c SET poll_attempts = c.poll_attempts + 1,
          outputs_expire_at = least(c.outputs_expire_at, ${expiry}::timestamptz)
      FROM ${source} s WHERE c.id = s.case_id
    )`;
}

/** A resolved hold no longer counts towards what the case holds. */
export async function releaseHeldMicros(tx: Db, caseId: string, amountMicros: bigint): Promise<void> {
  await tx.case.update({ where: { id: caseId }, data: { heldMicros: { decrement: amountMicros } } });
}
