import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { formatMicros } from "@/lib/domain/money";
import { type SpendBreach, spendBreach } from "@/lib/domain/spend-limits";
import { AppError } from "@/lib/errors";
import { increment } from "@/lib/metrics/counters";
import { toMicros } from "../finance/finance-micros";
import { spendUse } from "./spend-use";

type LimitRow = { producer: string | null; per_hour_micros: bigint | null; per_day_micros: bigint | null };

/** What authorising `amountMicros` now would pass: a limit of its currency (every producer's, then the producer's own) and how. */
export type LimitBreach = SpendBreach & { currency: string; producer: string | null };

type Ask = { currency: string; producer: string; amountMicros: number; now: Date };

/**
 * The first spend limit the ask would pass, or null. `lock` takes the limits that apply FOR UPDATE,
 * so two authorisations against one limit are taken in turn (the authorisation's own check); the
 * finance page asks without it, to warn before anyone presses the button.
 */
export async function firstSpendBreach(db: Db, ask: Ask, { lock }: { lock: boolean }): Promise<LimitBreach | null> {
  const limits = await sqlRows<LimitRow>(
    db,
    Prisma.sql`SELECT producer, per_hour_micros, per_day_micros FROM spend_limits
    WHERE currency = ${ask.currency} AND (producer IS NULL OR producer = ${ask.producer})
    ORDER BY producer NULLS FIRST ${lock ? Prisma.sql`FOR UPDATE` : Prisma.empty}`,
  );
  for (const limit of limits) {
    const used = await spendUse(db, ask.currency, limit.producer, ask.now);
    const figures = {
      perHourMicros: limit.per_hour_micros === null ? null : toMicros(limit.per_hour_micros),
      perDayMicros: limit.per_day_micros === null ? null : toMicros(limit.per_day_micros),
    };
    const breach = spendBreach(figures, used, ask.amountMicros);
    if (breach) return { ...breach, currency: ask.currency, producer: limit.producer };
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
  const breach = await firstSpendBreach(tx, ask, { lock: true });
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
