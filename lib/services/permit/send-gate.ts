import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { formatMicros } from "@/lib/domain/money";
import { PAUSE_KINDS, type PauseCause, type PauseKind, pauseKeysOf, pauseRefusalCode } from "@/lib/domain/scope-pauses";
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
 * - `gate_limits` locks the sends limits that apply (the producer's, and its model's) FOR UPDATE, in
 *   the order of their ids. Under READ COMMITTED a locked row is re-read at its latest committed
 *   version, so a concurrent permit that took the limit first is seen, and the two cannot both pass.
 *   With `after` (a CTE of the statement's last write) it locks only once that write is done, so a
 *   limit's row is held for the statement's end and its commit, not for its writes (decision 082).
 * - `gate_refused` is the limits the amount would pass.
 * - `gate_paused` (`gatePausedCte`).
 */
export function gateCtes(ask: GateAsk): Prisma.Sql {
  return Prisma.sql`${gateLimitsCtes(ask)}, ${gatePausedCte(ask)}`;
}

/** `gate_limits` and `gate_refused` (`gateCtes`), locking after `after` when given. */
export function gateLimitsCtes(ask: GateAsk, after?: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`
    gate_limits AS MATERIALIZED (
      SELECT id, model, per_hour_micros, per_day_micros,
             CASE WHEN hour_start >= ${HOUR_START} THEN hour_used_micros ELSE 0 END AS used_hour,
             CASE WHEN day_start >= ${DAY_START} THEN day_used_micros ELSE 0 END AS used_day
      FROM spend_limits
      WHERE applies_to = 'sends' AND currency = ${ask.currency} AND producer = ${ask.producer}
        AND (model IS NULL OR model = ${ask.model})
        ${after ? Prisma.sql`AND EXISTS (SELECT 1 FROM ${after})` : Prisma.empty}
      ORDER BY id
      FOR UPDATE
    ), gate_refused AS (
      SELECT * FROM gate_limits
      WHERE used_hour + ${ask.amountMicros} > per_hour_micros OR used_day + ${ask.amountMicros} > per_day_micros
    )`;
}

/**
 * `gate_paused`: the open pause that covers the send, of either cause (decision 070): a person's
 * pause of its provider, producer or model (decision 064), or the breaker's pause of its provider or
 * of this producer at it (decision 037). One lookup of the three keys in the partial index of open
 * pauses (empty while nothing is paused), the order of `pauseCovering`: a person's first (it has no
 * end), then the breaker's with the latest end (the Retry-After), provider before producer. It
 * locks nothing, so it is read before anything is written.
 */
export function gatePausedCte(ask: GateAsk): Prisma.Sql {
  return Prisma.sql`
    gate_paused AS (
      SELECT cause::text AS pause_cause, kind::text AS stop_kind, value AS stop_value, until FROM pauses
      WHERE (kind, value) IN (${Prisma.join(
        pauseKeysOf(ask).map(([kind, value]) => Prisma.sql`(${kind}::"PauseKind", ${value})`),
      )}) AND resumed_at IS NULL AND at_provider IN ('', ${ask.provider}) AND (until IS NULL OR until > now())
      ORDER BY cause = 'breaker', until DESC NULLS FIRST,
               array_position(ARRAY[${Prisma.join([...PAUSE_KINDS])}]::"PauseKind"[], kind)
      LIMIT 1
    )`;
}

/**
 * An SQL condition, true when no limit was passed, that fails the whole statement when one was
 * (`spend_gate_refuse`, SQLSTATE `SG001`, the limit's figures as the error's detail), so a statement
 * that wrote before it took the limits writes nothing on a refusal. The producer's own limit is
 * named before a model's, as `gateOutcomes` names it.
 */
export const GATE_LIMITS_PASSED = Prisma.sql`NOT EXISTS (
  SELECT 1 FROM (SELECT * FROM gate_refused ORDER BY model NULLS FIRST LIMIT 1) r
  WHERE spend_gate_refuse(jsonb_build_object('model', r.model, 'per_hour_micros', r.per_hour_micros::text,
    'per_day_micros', r.per_day_micros::text, 'used_hour', r.used_hour::text, 'used_day', r.used_day::text)))`;

/** A refusal `GATE_LIMITS_PASSED` raised, as the refusal columns; null for any other error. */
export function raisedRefusal(error: unknown): (GateRefusal & { outcome: string }) | null {
  // As pg raises it (`sqlRows`), or as Prisma wraps it (`$queryRaw`).
  type Raised = { code?: string; detail?: string };
  const direct = (error ?? {}) as Raised & { meta?: { driverAdapterError?: { cause?: Raised } } };
  const { code, detail } = direct.meta?.driverAdapterError?.cause ?? direct;
  if (code !== SPEND_GATE_REFUSED || !detail) return null;
  // Micro-units travel as text: a bigint may be past what a JSON number keeps exactly.
  const limit = JSON.parse(detail) as Record<string, string | null>;
  const micros = (value: string | null | undefined) => (value == null ? null : BigInt(value));
  return {
    outcome: "refused",
    ...NO_REFUSAL,
    limit_model: typeof limit.model === "string" ? limit.model : null,
    per_hour_micros: micros(limit.per_hour_micros),
    per_day_micros: micros(limit.per_day_micros),
    used_hour: micros(limit.used_hour),
    used_day: micros(limit.used_day),
  };
}

/** `spend_gate_refuse`'s SQLSTATE (migration 20261207220000). */
const SPEND_GATE_REFUSED = "SG001";

const NO_REFUSAL: GateRefusal = {
  retry_after_seconds: null,
  pause_cause: null,
  limit_model: null,
  per_hour_micros: null,
  per_day_micros: null,
  used_hour: null,
  used_day: null,
  stop_kind: null,
  stop_value: null,
};

/** No pause of any kind and no limit passed: the send may go out (an SQL condition over the gate's CTEs). */
export const GATE_OPEN = Prisma.sql`NOT EXISTS (SELECT 1 FROM gate_refused) AND NOT EXISTS (SELECT 1 FROM gate_paused)`;

/** The refusal columns every select arm that is not a refusal fills with NULLs, after its outcome. */
export const GATE_NO_REFUSAL = Prisma.sql`NULL::int AS retry_after_seconds, NULL::text AS pause_cause, NULL::text AS limit_model,
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
  /** Seconds to a breaker pause's end; null for a person's pause. */
  retry_after_seconds: number | null;
  /** Whose pause refused the send: it decides the public code (`pauseRefusalCode`). */
  pause_cause: PauseCause | null;
  limit_model: string | null;
  per_hour_micros: bigint | null;
  per_day_micros: bigint | null;
  used_hour: bigint | null;
  used_day: bigint | null;
  /** The pause that stopped the send: its kind and value (for the breaker, `producer` is its own). */
  stop_kind: PauseKind | null;
  stop_value: string | null;
};

/**
 * The select arms naming a refusal (`paused`, then `refused`: at most one row), after `guard` (an
 * SQL condition: a new send). One arm for a pause of either cause (decision 070).
 */
export function gateOutcomes(guard: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`${gatePausedOutcome(guard)}
    UNION ALL
    (SELECT 'refused', NULL, NULL, model, per_hour_micros, per_day_micros, used_hour, used_day, NULL, NULL
     FROM gate_refused WHERE ${guard} AND NOT EXISTS (SELECT 1 FROM gate_paused)
     ORDER BY model NULLS FIRST LIMIT 1)`;
}

/** The select arm naming a pause that refused the send, after `guard`. */
export function gatePausedOutcome(guard: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`
    UNION ALL
    SELECT 'paused', ceil(extract(epoch FROM (until - now())))::int, pause_cause,
           NULL, NULL, NULL, NULL, NULL, stop_kind, stop_value
    FROM gate_paused WHERE ${guard}`;
}

/**
 * The gate for a permit written inside a transaction (a new attempt after a refusal): one
 * statement that refuses, or takes the amount from every limit that applies. The limits stay locked
 * until the transaction commits, so the next permit against them sees this one's use; the caller
 * runs it after its writes, just before the commit, so they are held no longer (decision 082).
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
 * only trace). A pause's code is its cause's (`pauseRefusalCode`, decision 070): `503 sends_paused`
 * while a person's pause covers the send (no Retry-After: it lasts until someone resumes it),
 * `503 provider_paused` with a Retry-After until the breaker's window clears. Otherwise
 * `409 spend_limit_reached` with the limit, its use in the window, the request and the scope.
 */
export function gateRefusal(ask: GateAsk, row: GateRefusal & { outcome: string }): AppError {
  if (row.outcome === "paused" && row.pause_cause) return pauseRefusal(ask, row, row.pause_cause);
  return limitRefusal(ask, row);
}

function pauseRefusal(ask: GateAsk, row: GateRefusal, cause: PauseCause): AppError {
  const code = pauseRefusalCode(cause);
  increment("recovery_permit_refusals_total", { reason: code, provider: ask.provider });
  if (code === "sends_paused") {
    return new AppError(
      code,
      `No permit was issued: sends for ${row.stop_kind} ${row.stop_value} are paused in the console until someone resumes them.`,
      { details: { pauseKind: row.stop_kind, pausedValue: row.stop_value, provider: ask.provider } },
    );
  }
  const seconds = Math.max(1, row.retry_after_seconds ?? 1);
  const mine = row.stop_kind === "producer";
  const whose = mine ? `Your sends to ${ask.provider} are` : `Sends to ${ask.provider} are`;
  const which = mine ? "too many of your recent sends to it" : "too many recent sends to it";
  return new AppError(code, `${whose} paused: ${which} ended with an unknown outcome. Ask again in ${seconds} s.`, {
    retryAfterSeconds: seconds,
    details: {
      provider: ask.provider,
      scope: mine ? "producer" : "provider",
      producer: mine ? ask.producer : null,
      retryAfterSeconds: seconds,
    },
  });
}

function limitRefusal(ask: GateAsk, row: GateRefusal): AppError {
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
