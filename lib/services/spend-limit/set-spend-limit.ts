import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { inProducerScope } from "@/lib/domain/producer-scope";
import { AppError } from "@/lib/errors";
import { requirePermission, requireUnscoped } from "../access/actor";
import { recordAudit } from "../case/writer/audit";
import { toMicros } from "../finance/finance-micros";

export type SetSpendLimitInput = {
  currency: string;
  /** null or absent: the limit on every producer together. */
  producer?: string | null;
  /** Both null: the limit is cleared. */
  perHourMicros: number | null;
  perDayMicros: number | null;
};

type Figures = { perHourMicros: number | null; perDayMicros: number | null } | null;

/**
 * Sets, changes or clears one spend limit (finance). The audit row carries what it replaced and
 * what it became, in the same transaction. Returns the limit as it now stands (null: cleared).
 */
export async function setSpendLimit(db: Db, actor: Principal, input: SetSpendLimitInput) {
  const user = requirePermission(actor, "spend_limit:set");
  const producer = input.producer ?? null;
  // A limit on every producer, or on another shop, is beyond a person limited to some (decision 035).
  if (producer === null) requireUnscoped(user);
  else if (!inProducerScope(user.producers, producer))
    throw new AppError("forbidden", "You may set spend limits only for the producers you work for.");
  const cleared = input.perHourMicros === null && input.perDayMicros === null;
  return inTransaction(db, async (tx) => {
    // Serialises two people setting the same limit, so each audit row's "before" is what it replaced.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('spend_limits:' || ${input.currency} || ':' || coalesce(${producer}, '')))`;
    const existing = await tx.spendLimit.findFirst({ where: { currency: input.currency, producer } });
    const before: Figures = existing
      ? {
          perHourMicros: existing.perHourMicros === null ? null : toMicros(existing.perHourMicros),
          perDayMicros: existing.perDayMicros === null ? null : toMicros(existing.perDayMicros),
        }
      : null;
    const data = {
      perHourMicros: input.perHourMicros === null ? null : BigInt(input.perHourMicros),
      perDayMicros: input.perDayMicros === null ? null : BigInt(input.perDayMicros),
      updatedById: user.userId,
      updatedAt: new Date(),
    };
    if (cleared) {
      if (existing) await tx.spendLimit.delete({ where: { id: existing.id } });
    } else if (existing) {
      await tx.spendLimit.update({ where: { id: existing.id }, data });
    } else {
      await tx.spendLimit.create({ data: { currency: input.currency, producer, ...data } });
    }
    const after: Figures = cleared ? null : { perHourMicros: input.perHourMicros, perDayMicros: input.perDayMicros };
    await recordAudit(tx, {
      actor: user,
      kind: cleared ? "spend_limit_cleared" : "spend_limit_set",
      before: { currency: input.currency, producer, limit: before },
      after: { currency: input.currency, producer, limit: after },
    });
    return { currency: input.currency, producer, limit: after };
  });
}
