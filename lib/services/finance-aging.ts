import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { requirePermission } from "./actor";
import { toCount, toMicros } from "./finance-micros";

/** Upper bounds in seconds; the last bucket is open-ended. */
export const AGE_BUCKETS = [
  { key: "lt_1h", label: "Under 1 hour", maxSeconds: 3_600 },
  { key: "lt_1d", label: "1 to 24 hours", maxSeconds: 86_400 },
  { key: "lt_7d", label: "1 to 7 days", maxSeconds: 7 * 86_400 },
  { key: "lt_30d", label: "7 to 30 days", maxSeconds: 30 * 86_400 },
  { key: "gte_30d", label: "30 days or more", maxSeconds: null },
] as const;
export type AgeBucketKey = (typeof AGE_BUCKETS)[number]["key"];

type Row = { currency: string; bucket: number; count: bigint; micros: bigint; oldest: Date };

/** Money still held, per currency and age since the hold was reserved: old holds need a decision. */
export async function getHeldByAge(db: Db, actor: Principal, now = new Date()) {
  requirePermission(actor, "hold:read");
  const rows = await db.$queryRaw<Row[]>`
    SELECT h.currency, b.bucket, count(*) AS count, COALESCE(sum(h.amount_micros), 0)::bigint AS micros,
           min(h.created_at) AS oldest
    FROM holds h
    CROSS JOIN LATERAL (
      SELECT CASE
        WHEN ${now}::timestamptz - h.created_at < interval '1 hour' THEN 0
        WHEN ${now}::timestamptz - h.created_at < interval '1 day' THEN 1
        WHEN ${now}::timestamptz - h.created_at < interval '7 days' THEN 2
        WHEN ${now}::timestamptz - h.created_at < interval '30 days' THEN 3
        ELSE 4 END AS bucket
    ) b
    WHERE h.status = 'held'
    GROUP BY h.currency, b.bucket
    ORDER BY h.currency, b.bucket`;
  return rows.map((row) => {
    const bucket = AGE_BUCKETS[row.bucket] ?? AGE_BUCKETS[AGE_BUCKETS.length - 1];
    return {
      currency: row.currency,
      bucket: bucket?.key ?? "gte_30d",
      label: bucket?.label ?? "",
      count: toCount(row.count),
      micros: toMicros(row.micros),
      oldestAt: row.oldest.toISOString(),
    };
  });
}
