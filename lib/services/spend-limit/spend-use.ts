import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { SPEND_WINDOW_MS, type SpendUse } from "@/lib/domain/spend-limits";
import { toMicros } from "../finance/finance-micros";

/**
 * What replacements authorised in the rolling hour and day up to `now` add up to, in one
 * currency, for every producer (null) or one. A replacement counts from the moment it was
 * authorised, whatever became of it since: its hold was reserved then.
 */
export async function spendUse(db: Db, currency: string, producer: string | null, now: Date): Promise<SpendUse> {
  const hourStart = new Date(now.getTime() - SPEND_WINDOW_MS.hour);
  const dayStart = new Date(now.getTime() - SPEND_WINDOW_MS.day);
  const [row] = await sqlRows<{ hour: bigint | null; day: bigint | null }>(
    db,
    Prisma.sql`
    SELECT sum(r.amount_micros) FILTER (WHERE r.decided_at > ${hourStart}) AS hour, sum(r.amount_micros) AS day
    FROM replacement_requests r
    WHERE r.new_attempt_ref IS NOT NULL AND r.currency = ${currency}
      AND r.decided_at > ${dayStart}
      ${producer === null ? Prisma.empty : Prisma.sql`AND EXISTS (SELECT 1 FROM cases c WHERE c.id = r.case_id AND c.producer = ${producer})`}`,
  );
  return { hour: toMicros(row?.hour), day: toMicros(row?.day) };
}
