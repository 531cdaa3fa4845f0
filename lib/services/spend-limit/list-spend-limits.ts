import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { scopeOf } from "@/lib/domain/producer-scope";
import { counterUse, type SpendLimitTarget } from "@/lib/domain/spend-limits";
import { requirePermission } from "../access/actor";
import { toMicros } from "../finance/finance-micros";
import { spendUse } from "./spend-use";

export type SpendLimitView = {
  /** "replacements" (rolling windows) or "sends" (calendar hour and UTC day, decision 037). */
  appliesTo: SpendLimitTarget;
  currency: string;
  /** null: the limit on every producer together. */
  producer: string | null;
  /** Sends only: the one model it limits; null: every model. */
  model: string | null;
  perHourMicros: number | null;
  perDayMicros: number | null;
  usedHourMicros: number;
  usedDayMicros: number;
  updatedAt: string;
};

/**
 * Every spend limit with what it has used in its hour and day (rolling for replacements, the
 * counters of the calendar hour and UTC day for sends), as finance sees them. A
 * person limited to some producers sees those producers' limits only: a limit on every producer
 * counts every producer's spend (decision 035).
 */
export async function listSpendLimits(db: Db, actor: Principal, now = new Date()): Promise<SpendLimitView[]> {
  requirePermission(actor, "hold:read");
  const scope = scopeOf(actor);
  const rows = await db.spendLimit.findMany({
    where: scope ? { producer: { in: [...scope] } } : {},
    orderBy: [{ appliesTo: "asc" }, { currency: "asc" }, { producer: "asc" }, { model: "asc" }],
  });
  return Promise.all(
    rows.map(async (row) => {
      const appliesTo = row.appliesTo as SpendLimitTarget;
      const used =
        appliesTo === "sends"
          ? {
              hour: counterUse({ start: row.hourStart, usedMicros: toMicros(row.hourUsedMicros) }, "hour", now),
              day: counterUse({ start: row.dayStart, usedMicros: toMicros(row.dayUsedMicros) }, "day", now),
            }
          : await spendUse(db, row.currency, row.producer, now);
      return {
        appliesTo,
        currency: row.currency,
        producer: row.producer,
        model: row.model,
        perHourMicros: row.perHourMicros === null ? null : toMicros(row.perHourMicros),
        perDayMicros: row.perDayMicros === null ? null : toMicros(row.perDayMicros),
        usedHourMicros: used.hour,
        usedDayMicros: used.day,
        updatedAt: row.updatedAt.toISOString(),
      };
    }),
  );
}
