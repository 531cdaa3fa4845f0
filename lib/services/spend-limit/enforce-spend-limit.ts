import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { formatMicros } from "@/lib/domain/money";
import { type SpendBreach, type SpendLimitFigures, type SpendUse, spendBreach } from "@/lib/domain/spend-limits";
import { AppError } from "@/lib/errors";
import { increment } from "@/lib/metrics/counters";
import { toMicros } from "../finance/finance-micros";
import { spendUse } from "./spend-use";

type LimitRow = { producer: string | null; per_hour_micros: bigint | null; per_day_micros: bigint | null };

/** What authorising `amountMicros` now would pass: a limit of its currency (every producer's, then the producer's own) and how. */
export type LimitBreach = SpendBreach & { currency: string; producer: string | null };

type Ask = { currency: string; producer: string; amountMicros: number; now: Date };

/** A limit that applies to a producer's replacements in one currency, with what it has used so far. */
export type LimitInUse = { producer: string | null; figures: SpendLimitFigures; used: SpendUse };

/**
 * The limits of `currency` that apply to `producer`'s replacements (every producer's first, then its
 * own) with their use. `lock` takes them FOR UPDATE, so two authorisations against one limit are
 * taken in turn (the authorisation's own check); the finance page reads without it, to warn.
 */
export async function limitsInUse(
  db: Db,
  at: { currency: string; producer: string; now: Date },
  { lock }: { lock: boolean },
): Promise<LimitInUse[]> {
  const limits = await sqlRows<LimitRow>(
    db,
    Prisma.sql`SELECT producer, per_hour_micros, per_day_micros FROM spend_limits
    WHERE applies_to = 'replacements' AND currency = ${at.currency} AND (producer IS NULL OR producer = ${at.producer})
    ORDER BY producer NULLS FIRST ${lock ? Prisma.sql`FOR UPDATE` : Prisma.empty}`,
  );
  const inUse: LimitInUse[] = [];
  for (const limit of limits) {
    inUse.push({
      producer: limit.producer,
      figures: {
        perHourMicros: limit.per_hour_micros === null ? null : toMicros(limit.per_hour_micros),
        perDayMicros: limit.per_day_micros === null ? null : toMicros(limit.per_day_micros),
      },
      used: await spendUse(db, at.currency, limit.producer, at.now),
    });
  }
  return inUse;
}

/** The first of the limits that `amountMicros` more would pass, or null. Pure. */
export function firstBreach(limits: LimitInUse[], currency: string, amountMicros: number): LimitBreach | null {
  for (const limit of limits) {
    const breach = spendBreach(limit.figures, limit.used, amountMicros);
    if (breach) return { ...breach, currency, producer: limit.producer };
  }
  return null;
}

/**
 * The breach in words. A limit on every producer counts every producer's spend, which a person
 * limited to some producers does not see (decision 035): they are told which limit, not its figures.
 */
export function describeBreach(breach: LimitBreach, { everyProducer }: { everyProducer: boolean }): string {
  const figures = everyProducer || breach.producer !== null;
  const money = (micros: number) => formatMicros(micros, breach.currency);
  const scope = breach.producer === null ? "every producer" : `producer ${breach.producer}`;
  const limit = `the ${breach.window}ly spend limit for ${breach.currency} replacements (${scope})`;
  if (!figures) return `${limit} would be passed by this replacement's ${money(breach.requestedMicros)}.`;
  return (
    `${limit} is ${money(breach.limitMicros)}, ${money(breach.usedMicros)} is already authorised in the last ` +
    `${breach.window} and this replacement asks ${money(breach.requestedMicros)}.`
  );
}

/**
 * Refuses an authorisation that would take replacements past a spend limit of its currency: the
 * every-producer limit and the producer's own. Runs inside the authorisation's transaction and
 * first locks the limits that apply, so two authorisations against one limit are taken in turn:
 * the second sums after the first committed (each statement reads afresh under READ COMMITTED)
 * and cannot also pass. Without a limit for the currency nothing is locked.
 */
export async function enforceSpendLimit(
  tx: Prisma.TransactionClient,
  ask: Ask & { everyProducer: boolean },
): Promise<void> {
  const breach = firstBreach(await limitsInUse(tx, ask, { lock: true }), ask.currency, ask.amountMicros);
  if (!breach) return;
  // A refusal writes no row (the transaction rolls back), so it is counted here.
  increment("recovery_spend_limit_refusals_total", { currency: ask.currency, window: breach.window });
  const text = describeBreach(breach, ask);
  const figures = ask.everyProducer || breach.producer !== null;
  throw new AppError("spend_limit_exceeded", `Nothing was authorised: ${text}`, {
    details: {
      window: breach.window,
      currency: ask.currency,
      producer: breach.producer,
      limitMicros: figures ? breach.limitMicros : null,
      usedMicros: figures ? breach.usedMicros : null,
      requestedMicros: breach.requestedMicros,
    },
  });
}
