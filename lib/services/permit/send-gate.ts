import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { formatMicros } from "@/lib/domain/money";
import { PAUSE_KINDS, type PauseKind, pauseKeysOf } from "@/lib/domain/scope-pauses";
import { spendBreach } from "@/lib/domain/spend-limits";
import { AppError } from "@/lib/errors";
import { increment } from "@/lib/metrics/counters";
import { toMicros } from "../finance/finance-micros";

/** What a permit would spend, and where: the facts the gate checks. */
export type GateAsk = { producer: string; provider: string; model: string; currency: string; amountMicros: bigint };

// The calendar windows a sends limit counts in, in UTC whatever the session's time zone.
const HOUR_START = Prisma.sql`(date_trunc('hour', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')`;
const DAY_START = Prisma.sql`(date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')`;

/**
 * The gate's common table expressions, shared by the one-statement first permit and the later
 * permits' transaction, so there is one check (decision 037):
 * - `gate_limits` locks the sends limits that apply (the producer's, and its model's) FOR UPDATE.
 *   Under READ COMMITTED a locked row is re-read at its latest committed version, so a concurrent
 *   permit that took the limit first is seen, and the two cannot both pass.
 * - `gate_refused` is the limits the amount would pass; `gate_paused` the breaker's pause of the
 *   provider, or of this producer at it, if one is running (two primary-key reads).
 * - `gate_stopped` a person's pause of the send's provider, producer or model (decision 064; three
 *   primary-key reads of a table that is empty while nothing is paused), the first in that order.
 */
export function gateCtes(ask: GateAsk): Prisma.Sql {
  return Prisma.sql`
    gate_limits AS MATERIALIZED (
      SELECT id, model, per_hour_micros, per_day_micros,
             CASE WHEN hour_start >= ${HOUR_START} THEN hour_used_micros ELSE 0 END AS used_hour,
             CASE WHEN day_start >= ${DAY_START} THEN day_used_micros ELSE 0 END AS used_day
      FROM spend_limits
      WHERE applies_to = 'sends' AND currency = ${ask.currency} AND producer = ${ask.producer}
        AND (model IS NULL OR model = ${ask.model})
      ORDER BY id
      FOR UPDATE
    ), gate_refused AS (
      SELECT * FROM gate_limits
      WHERE used_hour + ${ask.amountMicros} > per_hour_micros OR used_day + ${ask.amountMicros} > per_day_micros
    ), gate_paused AS (
      SELECT max(paused_until) AS paused_until, bool_and(scope = 'producer') AS producer_only FROM (
        SELECT paused_until, 'provider' AS scope FROM provider_breakers
        WHERE provider = ${ask.provider} AND paused_until > now()
        UNION ALL
        SELECT paused_until, 'producer' FROM producer_breaker_pauses
        WHERE provider = ${ask.provider} AND producer = ${ask.producer} AND paused_until > now()
      ) pauses HAVING count(*) > 0
    ), gate_stopped AS (
      SELECT kind::text AS stop_kind, value AS stop_value FROM scope_pauses
      WHERE (kind, value) IN (${Prisma.join(
        pauseKeysOf(ask).map(([kind, value]) => Prisma.sql`(${kind}::"PauseKind", ${value})`),
      )})
      ORDER BY array_position(ARRAY[${Prisma.join([...PAUSE_KINDS])}]::"PauseKind"[], kind)
      LIMIT 1
    )`;
}

/** No pause of any kind and no limit passed: the send may go out (an SQL condition over the gate's CTEs). */
export const GATE_OPEN = Prisma.sql`NOT EXISTS (SELECT 1 FROM gate_refused) AND NOT EXISTS (SELECT 1 FROM gate_paused)
  AND NOT EXISTS (SELECT 1 FROM gate_stopped)`;

/** The refusal columns every select arm that is not a refusal fills with NULLs, after its outcome. */
export const GATE_NO_REFUSAL = Prisma.sql`NULL::int AS retry_after_seconds, NULL::boolean AS producer_only, NULL::text AS limit_model,
  NULL::bigint AS per_hour_micros, NULL::bigint AS per_day_micros, NULL::bigint AS used_hour, NULL::bigint AS used_day,
  NULL::text AS stop_kind, NULL::text AS stop_value`;

/**
 * Adds the amount to every locked limit's counters (a counter of an earlier window starts again), when
 * `when` holds. A window never moves back: `now()` is the statement's start, so a permit that waited
 * on the lock across an hour's turn may see an earlier hour than the permit that took the limit
 * first; it then counts in that later window instead of wiping its use.
 */
export function gateTake(ask: GateAsk, when: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`
    gate_take AS (
      UPDATE spend_limits s
      SET hour_start = greatest(s.hour_start, ${HOUR_START}), hour_used_micros = l.used_hour + ${ask.amountMicros},
          day_start = greatest(s.day_start, ${DAY_START}), day_used_micros = l.used_day + ${ask.amountMicros}
      FROM gate_limits l
      WHERE s.id = l.id AND ${when}
    )`;
}

/** The columns a refusal is explained by, as the statements return them. */
export type GateRefusal = {
  retry_after_seconds: number | null;
  /** A pause of this producer alone (its own outcomes), not of the provider. */
  producer_only: boolean | null;
  limit_model: string | null;
  per_hour_micros: bigint | null;
  per_day_micros: bigint | null;
  used_hour: bigint | null;
  used_day: bigint | null;
  /** A person's pause that stopped the send (decision 064). */
  stop_kind: PauseKind | null;
  stop_value: string | null;
};

/**
 * The select arms naming a refusal (`stopped`, then `paused`, then `refused`: at most one row), after
 * `guard` (an SQL condition: a new send).
 */
export function gateOutcomes(guard: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`
    UNION ALL
    SELECT 'stopped', NULL, NULL, NULL, NULL, NULL, NULL, NULL, stop_kind, stop_value
    FROM gate_stopped WHERE ${guard}
    UNION ALL
    SELECT 'paused', ceil(extract(epoch FROM (paused_until - now())))::int, producer_only,
           NULL, NULL, NULL, NULL, NULL, NULL, NULL
    FROM gate_paused WHERE ${guard} AND NOT EXISTS (SELECT 1 FROM gate_stopped)
    UNION ALL
    (SELECT 'refused', NULL, NULL, model, per_hour_micros, per_day_micros, used_hour, used_day, NULL, NULL
     FROM gate_refused WHERE ${guard} AND NOT EXISTS (SELECT 1 FROM gate_paused) AND NOT EXISTS (SELECT 1 FROM gate_stopped)
     ORDER BY model NULLS FIRST LIMIT 1)`;
}

/**
 * The gate for a permit written inside a transaction (a new attempt after a refusal): one
 * statement that refuses, or takes the amount from every limit that applies. The limits stay locked
 * until the transaction commits, so the next permit against them sees this one's use.
 */
export async function passSendGate(tx: Db, ask: GateAsk): Promise<void> {
  const rows = await sqlRows<GateRefusal & { outcome: string }>(
    tx,
    Prisma.sql`
    WITH ${gateCtes(ask)}, ${gateTake(ask, GATE_OPEN)}
    SELECT 'passed' AS outcome, ${GATE_NO_REFUSAL}
    WHERE ${GATE_OPEN}
    ${gateOutcomes(Prisma.sql`TRUE`)}`,
  );
  const row = rows[0];
  if (row && row.outcome !== "passed") throw gateRefusal(ask, row);
}

/**
 * The refusal in words and figures, counted (a refused permit writes nothing, so the counter is its
 * only trace): `503 sends_paused` while a person's pause covers the send (no Retry-After: it lasts
 * until someone resumes it), `503 provider_paused` with a Retry-After until the breaker's window clears, or
 * `409 spend_limit_reached` with the limit, its use in the window, the request and the scope.
 */
export function gateRefusal(ask: GateAsk, row: GateRefusal & { outcome: string }): AppError {
  if (row.outcome === "stopped" && row.stop_kind && row.stop_value !== null) {
    increment("recovery_permit_refusals_total", { reason: "sends_paused", provider: ask.provider });
    return new AppError(
      "sends_paused",
      `No permit was issued: sends for ${row.stop_kind} ${row.stop_value} are paused in the console until someone resumes them.`,
      { details: { pauseKind: row.stop_kind, pausedValue: row.stop_value, provider: ask.provider } },
    );
  }
  if (row.outcome === "paused") {
    const seconds = Math.max(1, row.retry_after_seconds ?? 1);
    increment("recovery_permit_refusals_total", { reason: "provider_paused", provider: ask.provider });
    const mine = row.producer_only === true;
    const whose = mine ? `Your sends to ${ask.provider} are` : `Sends to ${ask.provider} are`;
    const which = mine ? "too many of your recent sends to it" : "too many recent sends to it";
    return new AppError(
      "provider_paused",
      `${whose} paused: ${which} ended with an unknown outcome. Ask again in ${seconds} s.`,
      {
        retryAfterSeconds: seconds,
        details: {
          provider: ask.provider,
          scope: mine ? "producer" : "provider",
          producer: mine ? ask.producer : null,
          retryAfterSeconds: seconds,
        },
      },
    );
  }
  const requested = toMicros(ask.amountMicros);
  const figures = {
    perHourMicros: row.per_hour_micros === null ? null : toMicros(row.per_hour_micros),
    perDayMicros: row.per_day_micros === null ? null : toMicros(row.per_day_micros),
  };
  const used = { hour: toMicros(row.used_hour), day: toMicros(row.used_day) };
  // The statement found this limit passed; the pure check says in which window (the same comparison).
  const breach = spendBreach(figures, used, requested) ?? {
    window: "hour" as const,
    limitMicros: figures.perHourMicros ?? 0,
    usedMicros: used.hour,
    requestedMicros: requested,
  };
  increment("recovery_permit_refusals_total", { reason: "spend_limit", provider: ask.provider });
  const money = (micros: number) => formatMicros(micros, ask.currency);
  const scope =
    row.limit_model === null ? `producer ${ask.producer}` : `producer ${ask.producer}, model ${row.limit_model}`;
  return new AppError(
    "spend_limit_reached",
    `No permit was issued: the spend limit on sends in ${ask.currency} (${scope}) is ${money(breach.limitMicros)} ` +
      `this ${breach.window}, ${money(breach.usedMicros)} is already held and this send asks ${money(breach.requestedMicros)}.`,
    {
      details: {
        window: breach.window,
        scope: row.limit_model === null ? "producer" : "model",
        currency: ask.currency,
        producer: ask.producer,
        model: row.limit_model,
        limitMicros: breach.limitMicros,
        usedMicros: breach.usedMicros,
        requestedMicros: breach.requestedMicros,
      },
    },
  );
}
