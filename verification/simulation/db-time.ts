import type pg from "pg";
import { ACCEPTED_SILENCE_HOURS } from "@/lib/services/permit/park-overdue-permits";
import { type LogicalClock, QUANTUM_MS } from "./logical-clock";

/**
 * Simulated time inside PostgreSQL. The product compares `ready_at`, `lease_until` and
 * `next_attempt_at` with `now()`, and writes them as `now() + d` (d a whole number of quanta in a
 * simulation). After every step, each value the product just wrote is read back as a logical due
 * time (current logical time + d) and re-encoded as a "past" timestamp (due) or a "future" one
 * (not yet), in due order with the operation's index as tiebreak. Moving logical time forward
 * re-encodes what became due as past. So `<= now()` answers by logical time, and every
 * `ORDER BY` on these columns picks the same row on every run. Webhooks are held as "future" even
 * when due and released one at a time, because a batch of several would be sent in the order an
 * `UPDATE ... RETURNING` happens to produce, which PostgreSQL does not promise.
 */
const PAST_MS = 0; // 1970-01-01: due rows live just after it
const FRESH_FROM = "'2010-01-01T00:00:00Z'::timestamptz"; // anything between is a fresh wall-clock value
const FUTURE_MS = Date.UTC(2300, 0, 1); // rows not due yet live just after it
const STEP_MS = 1_000_000; // one quantum in the encoding; leaves room for the tiebreak
/** Tolerates the milliseconds between a write and its canonicalisation, and rounding to ms. */
const SLACK_MS = 200;

const FUTURE = `to_timestamp(${FUTURE_MS} / 1000.0)`;
const isFresh = (column: string) => `(${column} >= ${FRESH_FROM} AND ${column} < ${FUTURE})`;
const opIndexOf = (operationId: string) => `coalesce(substring(${operationId} from '([0-9]+)$')::bigint, 0)`;
const replacementsOf = (attemptId: string) =>
  `least(7, (length(${attemptId}) - length(replace(${attemptId}, '-replacement-', ''))) / 13)`;
/** Quanta from now until `column`, rounded up; a value at or before now is due now. */
const quantaAhead = (column: string) =>
  `greatest(0, ceil((extract(epoch from (${column} - now())) * 1000 - ${SLACK_MS}) / ${QUANTUM_MS}))::bigint`;
const encode = (quantum: number, ahead: string, tiebreak: string) =>
  `to_timestamp(((CASE WHEN ${ahead} = 0 THEN ${PAST_MS} ELSE ${FUTURE_MS} END) + (${quantum} + ${ahead}) * ${STEP_MS} + ${tiebreak}) / 1000.0)`;
const encodeHeld = (quantum: number, ahead: string, tiebreak: string) =>
  `to_timestamp((${FUTURE_MS} + (${quantum} + ${ahead}) * ${STEP_MS} + ${tiebreak}) / 1000.0)`;
const toPast = (column: string) => `to_timestamp((extract(epoch from ${column}) * 1000 - ${FUTURE_MS}) / 1000.0)`;
const dueBy = (quantum: string) => `to_timestamp((${FUTURE_MS} + ((${quantum})::bigint + 1) * ${STEP_MS}) / 1000.0)`;
const quantumOf = (column: string) => `floor((extract(epoch from ${column}) * 1000 - ${FUTURE_MS}) / ${STEP_MS})`;
/** The quantum an encoded value stands for, whether it is in the past or the future group. */
const quantumIn = (column: string) =>
  `floor((extract(epoch from ${column}) * 1000 - (CASE WHEN ${column} >= ${FUTURE} THEN ${FUTURE_MS} ELSE ${PAST_MS} END)) / ${STEP_MS})::int`;

/** A wall-clock value the product wrote in this step (logical times run 60 days behind it). */
const recent = (column: string) => `(${column} > now() - interval '1 day' AND ${column} < ${FUTURE})`;

/** A send permit's silence rule: an accepted send unreported this long is parked (ACCEPTED_SILENCE_HOURS). */
const SILENCE_QUANTA = (ACCEPTED_SILENCE_HOURS * 3_600_000) / QUANTUM_MS;

/**
 * CTEs that re-encode fresh values: the actions of the cases in `caseIdsQuery` (every action
 * write leaves an audit event on its case), returning `case_id` and `due`; any fresh webhook
 * schedule (always held, see above), returning `quantum`; the send permits' two clocks, held
 * like webhooks until released by logical time: a live permit's send deadline (the shop's SDK
 * wrote it from the wall clock), and an accepted, unparked send's last report, due a day later
 * (the sweep compares `reported_at <= now() - 24 h`), returning the quantum each falls due in,
 * with a new permit's issue time made logical (a case it parks is submitted then); and the times
 * of the cases permits parked (`permitCaseTimes`).
 */
export function canonicaliseCtes(clock: LogicalClock, caseIdsQuery: string): string {
  const quantum = clock.quantum();
  // Twins share an operation ID's text across shops: the shop's number breaks their tie.
  const permitIndex = `${opIndexOf("po.operation_id")} * 4 + coalesce(substring(po.producer from '-([0-9]+)$')::int, 1)`;
  const silent = "(p.status = 'accepted' AND p.case_ref IS NULL)";
  const logicalNow = `to_timestamp(${clock.now()} / 1000.0)`;
  // A permit reported past 'accepted' in the step it was issued in still has its wall-clock issue
  // time: made logical too, or the job its send created (at a logical time) would look older than it.
  return `${actionAndOutboxCtes(quantum, caseIdsQuery)},
    settled_permits AS (
      UPDATE send_permits p SET created_at = ${logicalNow} - (now() - p.created_at)
      WHERE p.status NOT IN ('live', 'accepted') AND ${recent("p.created_at")}
      RETURNING p.id
    ),
    fresh_permits AS (
      UPDATE send_permits p SET
        send_deadline = CASE WHEN p.status = 'live' AND ${isFresh("p.send_deadline")}
                             THEN ${encodeHeld(quantum, quantaAhead("p.send_deadline"), permitIndex)} ELSE p.send_deadline END,
        reported_at = CASE WHEN ${silent} AND ${isFresh("p.reported_at")}
                           THEN ${encodeHeld(quantum, `${SILENCE_QUANTA}::bigint`, permitIndex)} ELSE p.reported_at END,
        created_at = CASE WHEN ${recent("p.created_at")} THEN ${logicalNow} - (now() - p.created_at) ELSE p.created_at END
      FROM operations po
      WHERE po.id = p.operation_ref AND p.status IN ('live', 'accepted')
        AND ((p.status = 'live' AND ${isFresh("p.send_deadline")}) OR (${silent} AND ${isFresh("p.reported_at")})
             OR ${recent("p.created_at")})
      RETURNING ${quantumIn("(CASE WHEN p.status = 'live' THEN p.send_deadline ELSE p.reported_at END)")} AS quantum
    ), ${permitCaseTimes(clock, caseIdsQuery)}`;
}

/**
 * A case a send permit parked takes its retry deadline from the permit (its deadline plus the
 * provider's settling period), while the reviewers judge "too early" by logical time, as
 * for every case a shop parks with logical times: a wall-clock value from this step becomes the
 * same distance from logical now, and a deadline re-encoded as due becomes its quantum's logical time.
 */
function permitCaseTimes(clock: LogicalClock, caseIdsQuery: string): string {
  const logicalNow = `to_timestamp(${clock.now()} / 1000.0)`;
  const encodedDue = (column: string) => `(${column} < ${FRESH_FROM})`;
  const dueTime = (column: string) =>
    `to_timestamp((${clock.startMs} + floor(extract(epoch from ${column}) * 1000 / ${STEP_MS}) * ${QUANTUM_MS}) / 1000.0)`;
  return `
    fresh_cases AS (
      UPDATE cases c SET
        submitted_at = CASE WHEN ${recent("c.submitted_at")} THEN ${logicalNow} - (now() - c.submitted_at)
                            ELSE c.submitted_at END,
        retry_deadline = CASE WHEN ${recent("c.retry_deadline")} THEN ${logicalNow} + (c.retry_deadline - now())
                              WHEN ${encodedDue("c.retry_deadline")} THEN ${dueTime("c.retry_deadline")}
                              ELSE c.retry_deadline END
      WHERE c.id IN (${caseIdsQuery})
        AND (${recent("c.submitted_at")} OR ${recent("c.retry_deadline")} OR ${encodedDue("c.retry_deadline")})
      RETURNING c.id
    )`;
}

/** The first two of them: the cases' actions and the webhook schedules. */
function actionAndOutboxCtes(quantum: number, caseIdsQuery: string): string {
  const ready = quantaAhead("a.ready_at");
  const lease = quantaAhead("a.lease_until");
  const next = quantaAhead("o.next_attempt_at");
  const opIndex = opIndexOf("c.operation_id");
  return `
    fresh_actions AS (
      UPDATE recovery_actions a SET
        ready_at = CASE WHEN a.status = 'ready' AND ${isFresh("a.ready_at")}
                        THEN ${encode(quantum, ready, opIndex)} ELSE a.ready_at END,
        lease_until = CASE WHEN a.status = 'claimed' AND ${isFresh("a.lease_until")}
                           THEN ${encode(quantum, lease, opIndex)} ELSE a.lease_until END
      FROM cases c
      WHERE c.id = a.case_id AND a.case_id IN (${caseIdsQuery})
        AND ((a.status = 'ready' AND ${isFresh("a.ready_at")}) OR (a.status = 'claimed' AND ${isFresh("a.lease_until")}))
      RETURNING a.case_id, a.status = 'claimed' AS lease,
                ${quantumIn("(CASE WHEN a.status = 'ready' THEN a.ready_at ELSE a.lease_until END)")} AS quantum,
                (CASE WHEN a.status = 'ready' THEN a.ready_at ELSE a.lease_until END) < ${FUTURE} AS due
    ), fresh_outbox AS (
      UPDATE notification_outbox o SET
        next_attempt_at = ${encodeHeld(quantum, next, `${opIndex} * 8 + ${replacementsOf("(o.payload->'data'->>'attemptId')")}`)}
      FROM cases c
      WHERE c.id = o.case_id AND ${isFresh("o.next_attempt_at")} AND o.delivered_at IS NULL AND o.give_up_at IS NULL
      RETURNING ${quantumIn("o.next_attempt_at")} AS quantum
    )`;
}

export class DbTime {
  constructor(
    private readonly sql: pg.Pool,
    private readonly clock: LogicalClock,
  ) {}

  /** Re-encodes the ready actions of these cases that fell due by now as due (found by case, through its index). */
  async release(caseIds: string[]): Promise<void> {
    await this.sql.query(
      `UPDATE recovery_actions SET ready_at = ${toPast("ready_at")}
       WHERE case_id = ANY($1::uuid[]) AND status = 'ready'
         AND ready_at >= ${FUTURE} AND ready_at < ${dueBy(String(this.clock.quantum()))}`,
      [caseIds],
    );
  }

  /**
   * Makes the earliest webhook that is due (by logical time) sendable, and only that one. Returns
   * its case, or null and the quantum in which the next held webhook falls due (null if none).
   */
  async releaseNextWebhook(): Promise<{ caseId: string | null; nextQuantum: number | null }> {
    const pending = `delivered_at IS NULL AND give_up_at IS NULL AND next_attempt_at >= ${FUTURE}`;
    const { rows } = await this.sql.query<{ caseId: string | null; next: string | null }>(`
      WITH released AS (
        UPDATE notification_outbox SET next_attempt_at = ${toPast("next_attempt_at")}
        WHERE id = (
          SELECT id FROM notification_outbox
          WHERE ${pending} AND next_attempt_at < ${dueBy(String(this.clock.quantum()))}
          ORDER BY next_attempt_at LIMIT 1)
        RETURNING case_id::text AS case_id)
      SELECT (SELECT case_id FROM released) AS "caseId",
             (SELECT ${quantumOf("min(next_attempt_at)")}::text FROM notification_outbox WHERE ${pending}) AS next`);
    const row = rows[0];
    if (row?.caseId) return { caseId: row.caseId, nextQuantum: null };
    return { caseId: null, nextQuantum: row?.next ? Number(row.next) : null };
  }

  /**
   * Makes the send permits whose deadline (live) or silence (accepted, unparked) fell due by now
   * due for the product's sweep; returns how many did.
   */
  async releasePermits(): Promise<number> {
    const by = dueBy(String(this.clock.quantum()));
    const { rows } = await this.sql.query<{ released: number }>(`
      WITH deadlines AS (
        UPDATE send_permits SET send_deadline = ${toPast("send_deadline")}
        WHERE status = 'live' AND send_deadline >= ${FUTURE} AND send_deadline < ${by} RETURNING 1
      ), silences AS (
        UPDATE send_permits SET reported_at = ${toPast("reported_at")}
        WHERE status = 'accepted' AND case_ref IS NULL AND reported_at >= ${FUTURE} AND reported_at < ${by} RETURNING 1
      )
      SELECT ((SELECT count(*) FROM deadlines) + (SELECT count(*) FROM silences))::int AS released`);
    return rows[0]?.released ?? 0;
  }

  /**
   * The claim on this case's action is over: its lease ran out (the backlog picks one at a time, so
   * a rescue hands back exactly one action), or a call stalled past it.
   */
  async expireLease(caseId: string): Promise<void> {
    await this.sql.query(
      `UPDATE recovery_actions SET lease_until = to_timestamp(${PAST_MS + this.clock.quantum() * STEP_MS} / 1000.0)
       WHERE case_id = $1::uuid AND status = 'claimed'`,
      [caseId],
    );
  }

  /** A replacement request nobody decided in time (the product compares its expiry with `new Date()`). */
  async expireReplacementRequest(requestId: string): Promise<void> {
    await this.sql.query(
      `UPDATE replacement_requests SET expires_at = to_timestamp(${PAST_MS} / 1000.0) WHERE id = $1::uuid`,
      [requestId],
    );
  }

  quantum(): number {
    return this.clock.quantum();
  }
}
