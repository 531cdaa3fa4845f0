import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { inProducerScope } from "@/lib/domain/producer-scope";
import type { SpendLimitTarget } from "@/lib/domain/spend-limits";
import { AppError } from "@/lib/errors";
import { requirePermission, requireUnscoped } from "../access/actor";
import { toMicros } from "../finance/finance-micros";

export type SetSpendLimitInput = {
  /** Absent: replacements (decision 030). "sends": the permits a producer asks for (decision 037). */
  appliesTo?: SpendLimitTarget;
  currency: string;
  /** null or absent: the limit on every producer together (replacements only). */
  producer?: string | null;
  /** Sends only: one model of the producer's; null or absent: all its models. */
  model?: string | null;
  /** Both null: the limit is cleared. */
  perHourMicros: number | null;
  perDayMicros: number | null;
};

type Figures = { perHourMicros: number | null; perDayMicros: number | null } | null;

/**
 * Sets, changes or clears one spend limit (finance). The audit row carries what it replaced and
 * what it became, in the same transaction. Returns the limit as it now stands (null: cleared).
 * A new sends limit starts its counters at what the scope's permits already hold in this hour and
 * day, so setting a limit mid-hour does not hand out the hour again.
 */
export async function setSpendLimit(db: Db, actor: Principal, input: SetSpendLimitInput) {
  const user = requirePermission(actor, "spend_limit:set");
  const appliesTo = input.appliesTo ?? "replacements";
  const producer = input.producer ?? null;
  const model = input.model ?? null;
  if (appliesTo === "sends" && producer === null) {
    throw new AppError("invalid_request", "Check the highlighted fields.", {
      issues: [{ path: "producer", message: "a limit on sends names its producer" }],
    });
  }
  if (appliesTo === "replacements" && model !== null) {
    throw new AppError("invalid_request", "Check the highlighted fields.", {
      issues: [{ path: "model", message: "a limit on replacements applies to every model" }],
    });
  }
  // A limit on every producer, or on another shop, is beyond a person limited to some (decision 035).
  if (producer === null) requireUnscoped(user);
  else if (!inProducerScope(user.producers, producer))
    throw new AppError("forbidden", "You may set spend limits only for the producers you work for.");
  const cleared = input.perHourMicros === null && input.perDayMicros === null;
  const scope = { appliesTo, currency: input.currency, producer, model };
  return inTransaction(db, async (tx) => {
    // Serialises two people setting the same limit, so each audit row's "before" is what it replaced.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('spend_limits:' || ${appliesTo} || ':' || ${input.currency} || ':' || coalesce(${producer}, '') || ':' || coalesce(${model}, '')))`;
    const existing = await tx.spendLimit.findFirst({ where: scope });
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
      const created = await tx.spendLimit.create({ data: { ...scope, ...data }, select: { id: true } });
      if (appliesTo === "sends") await seedSendsCounters(tx, created.id);
    }
    const after: Figures = cleared ? null : { perHourMicros: input.perHourMicros, perDayMicros: input.perDayMicros };
    const named = appliesTo === "sends" ? { appliesTo, model } : {};
    await recordAudit(tx, {
      actor: user,
      kind: cleared ? "spend_limit_cleared" : "spend_limit_set",
      before: { currency: input.currency, producer, ...named, limit: before },
      after: { currency: input.currency, producer, ...named, limit: after },
    });
    return { appliesTo, currency: input.currency, producer, model, limit: after };
  });
}

/** A new sends limit's counters: the holds its scope's permits reserved in the current UTC hour and day. */
async function seedSendsCounters(tx: Db, id: string): Promise<void> {
  await tx.$executeRaw`
    WITH w AS (
      SELECT date_trunc('hour', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour,
             date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS day
    ), used AS (
      SELECT coalesce(sum(h.amount_micros) FILTER (WHERE h.created_at >= w.hour), 0) AS hour,
             coalesce(sum(h.amount_micros), 0) AS day
      FROM spend_limits l CROSS JOIN w
      JOIN holds h ON h.producer = l.producer AND h.currency = l.currency AND h.created_at >= w.day
      JOIN send_permits sp ON sp.hold_ref = h.id
      JOIN operations o ON o.id = sp.operation_ref AND (l.model IS NULL OR o.model = l.model)
      WHERE l.id = ${id}::uuid
    )
    UPDATE spend_limits SET hour_start = w.hour, hour_used_micros = used.hour, day_start = w.day, day_used_micros = used.day
    FROM w, used WHERE spend_limits.id = ${id}::uuid`;
}
