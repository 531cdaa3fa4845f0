import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { requirePermission, scopeOf } from "../access/actor";
import { toMicros } from "../finance/finance-micros";
import { spendUse } from "./spend-use";

export type SpendLimitView = {
  currency: string;
  /** null: the limit on every producer together. */
  producer: string | null;
  perHourMicros: number | null;
  perDayMicros: number | null;
  usedHourMicros: number;
  usedDayMicros: number;
  updatedAt: string;
};

/**
 * Every spend limit with what it has used in its rolling hour and day, as finance sees them. A
 * person limited to some producers sees those producers' limits only: a limit on every producer
 * counts every producer's spend (decision 035).
 */
export async function listSpendLimits(db: Db, actor: Principal, now = new Date()): Promise<SpendLimitView[]> {
  requirePermission(actor, "hold:read");
  const scope = scopeOf(actor);
  const rows = await db.spendLimit.findMany({
    where: scope ? { producer: { in: [...scope] } } : {},
    orderBy: [{ currency: "asc" }, { producer: "asc" }],
  });
  return Promise.all(
    rows.map(async (row) => {
      const used = await spendUse(db, row.currency, row.producer, now);
      return {
        currency: row.currency,
        producer: row.producer,
        perHourMicros: row.perHourMicros === null ? null : toMicros(row.perHourMicros),
        perDayMicros: row.perDayMicros === null ? null : toMicros(row.perDayMicros),
        usedHourMicros: used.hour,
        usedDayMicros: used.day,
        updatedAt: row.updatedAt.toISOString(),
      };
    }),
  );
}
