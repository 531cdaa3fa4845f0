import type { Prisma } from "@/lib/db/generated/prisma/client";
import { formatMicros } from "@/lib/domain/money";
import { spendBreach } from "@/lib/domain/spend-limits";
import { AppError } from "@/lib/errors";
import { increment } from "@/lib/metrics/counters";
import { toMicros } from "../finance/finance-micros";
import { spendUse } from "./spend-use";

type LimitRow = { producer: string | null; per_hour_micros: bigint | null; per_day_micros: bigint | null };

/**
 * Refuses an authorisation that would take replacements past a spend limit of its currency: the
 * every-producer limit and the producer's own. Runs inside the authorisation's transaction and
 * first locks the limits that apply, so two authorisations against one limit are taken in turn:
 * the second sums after the first committed (each statement reads afresh under READ COMMITTED)
 * and cannot also pass. Without a limit for the currency nothing is locked.
 */
export async function enforceSpendLimit(
  tx: Prisma.TransactionClient,
  input: { currency: string; producer: string; amountMicros: number; now: Date },
): Promise<void> {
  const limits = await tx.$queryRaw<LimitRow[]>`
    SELECT producer, per_hour_micros, per_day_micros FROM spend_limits
    WHERE currency = ${input.currency} AND (producer IS NULL OR producer = ${input.producer})
    ORDER BY producer NULLS FIRST
    FOR UPDATE`;
  for (const limit of limits) {
    const used = await spendUse(tx, input.currency, limit.producer, input.now);
    const breach = spendBreach(
      {
        perHourMicros: limit.per_hour_micros === null ? null : toMicros(limit.per_hour_micros),
        perDayMicros: limit.per_day_micros === null ? null : toMicros(limit.per_day_micros),
      },
      used,
      input.amountMicros,
    );
    if (!breach) continue;
    // A refusal writes no row (the transaction rolls back), so it is counted here.
    increment("recovery_spend_limit_refusals_total", { currency: input.currency, window: breach.window });
    const money = (micros: number) => formatMicros(micros, input.currency);
    const scope = limit.producer === null ? "every producer" : `producer ${limit.producer}`;
    throw new AppError(
      "spend_limit_exceeded",
      `Nothing was authorised: the ${breach.window}ly spend limit for ${input.currency} replacements (${scope}) is ` +
        `${money(breach.limitMicros)}, ${money(breach.usedMicros)} is already authorised in the last ${breach.window} ` +
        `and this replacement asks ${money(breach.requestedMicros)}.`,
      {
        details: {
          window: breach.window,
          currency: input.currency,
          producer: limit.producer,
          limitMicros: breach.limitMicros,
          usedMicros: breach.usedMicros,
          requestedMicros: breach.requestedMicros,
        },
      },
    );
  }
}
