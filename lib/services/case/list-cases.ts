import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { type ActionRecord, lastAttempt, waitingOn } from "@/lib/domain/case-progress";
import { futileRepeat } from "@/lib/domain/futile-repeat";
import type { Principal } from "@/lib/domain/principal";
import { scopeOf } from "@/lib/domain/producer-scope";
import { PARTIAL_SEARCH_MIN } from "@/lib/domain/queue-search";
import { type CaseState, type RecoveryActionKind, STAGES, type Stage } from "@/lib/domain/stages";
import { AppError } from "@/lib/errors";
import type { ListCasesQuery, QueueSort } from "@/lib/validation/list-cases";
import { requirePermission } from "../access/actor";
import { GIVEN_UP } from "../notification/producer-not-told";
import { caseFilterConditions } from "./case-filter";
import { lastAttemptFindings } from "./last-attempt-findings";

type Cursor = { v: string; id: string };

type SortKey = "opened_at" | "held_micros" | "stage" | "provider" | "last_attempt_at";

/** Each order's key, direction and its reverse (a case's previous neighbour is its next in the reverse order). */
const ORDERS: Record<QueueSort, { key: SortKey; descending: boolean; reverse: QueueSort }> = {
  age: { key: "opened_at", descending: false, reverse: "newest" },
  newest: { key: "opened_at", descending: true, reverse: "age" },
  amount: { key: "held_micros", descending: true, reverse: "smallest" },
  smallest: { key: "held_micros", descending: false, reverse: "amount" },
  stage: { key: "stage", descending: false, reverse: "stage_desc" },
  stage_desc: { key: "stage", descending: true, reverse: "stage" },
  provider: { key: "provider", descending: false, reverse: "provider_desc" },
  provider_desc: { key: "provider", descending: true, reverse: "provider" },
  attempt: { key: "last_attempt_at", descending: false, reverse: "attempt_recent" },
  attempt_recent: { key: "last_attempt_at", descending: true, reverse: "attempt" },
};

/**
 * A never-attempted case sorts as attempted at the beginning of time (decision 069): first when the
 * longest since an attempt comes first, last when the latest does, so each order is the other's
 * exact reverse (as a case's neighbours need). Spelled as the migration's indexes spell it.
 */
const NEVER = "-infinity";
const keySql = (key: SortKey, prefix: string) =>
  key === "last_attempt_at" ? `coalesce(${prefix}last_attempt_at, '${NEVER}'::timestamptz)` : `${prefix}${key}`;

export const reverseSort = (sort: QueueSort): QueueSort => ORDERS[sort].reverse;

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString("base64url");
}

/** The row's value of a sort's key, as a cursor carries it. */
export type CursorRow = {
  id: string;
  openedAt: Date;
  heldMicros: bigint;
  stage: Stage;
  provider: string;
  lastAttemptAt: Date | null;
};

/** The cursor of the page that follows a row, as the list issues it (for links made elsewhere). */
export function cursorAfter(row: CursorRow, sort: QueueSort) {
  const key = ORDERS[sort].key;
  const v =
    key === "opened_at"
      ? row.openedAt.toISOString()
      : key === "held_micros"
        ? row.heldMicros.toString()
        : key === "stage"
          ? row.stage
          : key === "last_attempt_at"
            ? (row.lastAttemptAt?.toISOString() ?? NEVER)
            : row.provider;
  return encodeCursor({ v, id: row.id });
}

const validValue: Record<SortKey, (v: string) => boolean> = {
  opened_at: (v) => !Number.isNaN(Date.parse(v)),
  held_micros: (v) => /^\d{1,19}$/.test(v),
  stage: (v) => (STAGES as readonly string[]).includes(v),
  provider: (v) => v.length <= 300,
  last_attempt_at: (v) => v === NEVER || !Number.isNaN(Date.parse(v)),
};

function decodeCursor(raw: string | undefined, sort: QueueSort): Cursor | null {
  if (!raw) return null;
  try {
    const value = JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) as Cursor;
    const valid =
      typeof value.v === "string" &&
      typeof value.id === "string" &&
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value.id) &&
      validValue[ORDERS[sort].key](value.v);
    if (valid) return value;
  } catch {}
  throw new AppError("invalid_request", "The cursor is not one this API issued.");
}

/** The view's order by a column, then by id, so every row has one place (keyset pagination needs a total order). */
export function orderSql(sort: QueueSort, prefix = "") {
  const { key, descending } = ORDERS[sort];
  const dir = descending ? "DESC" : "ASC";
  return Prisma.raw(`${keySql(key, prefix)} ${dir}, ${prefix}id ${dir}`);
}

function afterCursorSql(sort: QueueSort, cursor: Cursor) {
  const { key, descending } = ORDERS[sort];
  const value =
    key === "opened_at"
      ? Prisma.sql`${new Date(cursor.v)}`
      : key === "held_micros"
        ? Prisma.sql`${BigInt(cursor.v)}`
        : key === "stage"
          ? Prisma.sql`${cursor.v}::"Stage"`
          : key === "last_attempt_at"
            ? Prisma.sql`${cursor.v}::timestamptz`
            : Prisma.sql`${cursor.v}`;
  return Prisma.sql`(${Prisma.raw(keySql(key, ""))}, id) ${Prisma.raw(descending ? "<" : ">")} (${value}, ${cursor.id}::uuid)`;
}

/**
 * The view's cases by state and flag: open cases unless a state, the hold-open flag or the
 * producer-not-told flag (cases in any state) is asked for.
 */
export async function viewConditions(
  db: Db,
  actor: Principal,
  query: ListCasesQuery,
  now: Date,
  options: { counting?: boolean; page?: { cursor: Prisma.Sql[]; rows: number }; exactIds?: boolean } = {},
): Promise<Prisma.Sql[]> {
  const where: Prisma.Sql[] = [
    query.state
      ? Prisma.sql`state = ${query.state}::"CaseState"`
      : query.flag === "hold_open"
        ? Prisma.sql`state = 'resolved'`
        : query.flag === "producer_not_told"
          ? Prisma.sql`true`
          : Prisma.sql`state <> 'resolved'`,
  ];
  // Spelled as the partial indexes' predicates, so each flag reads only its own few rows.
  if (query.flag === "hold_open") where.push(Prisma.sql`state = 'resolved' AND held_micros > 0`);
  if (query.flag === "escalated") where.push(Prisma.sql`state <> 'resolved' AND escalated_at IS NOT NULL`);
  if (query.flag === "producer_not_told")
    where.push(Prisma.sql`id IN (SELECT case_id FROM notification_outbox WHERE ${GIVEN_UP})`);
  if (query.stage) where.push(Prisma.sql`stage = ${query.stage}::"Stage"`);
  const page = options.page && {
    where: [...where, ...options.page.cursor],
    order: orderSql(query.sort),
    rows: options.page.rows,
  };
  return [
    ...where,
    ...(await caseFilterConditions(db, query, scopeOf(actor), now, {
      counting: options.counting,
      page,
      exactIds: options.exactIds,
    })),
  ];
}

type Row = {
  id: string;
  operation_id: string;
  attempt_id: string;
  stage: Stage;
  state: CaseState;
  provider: string;
  model: string;
  provider_job_id: string | null;
  held_micros: bigint;
  currency: string;
  assignee_id: string | null;
  episode: number;
  opened_at: Date;
  last_attempt_at: Date | null;
  escalation_reason: string | null;
  escalated_at: Date | null;
  outputs_unavailable: boolean;
  last_id: string | null;
  last_kind: RecoveryActionKind | null;
  last_status: string | null;
  last_outcome: string | null;
  last_at: Date | null;
  last_reason: string | null;
  last_count: bigint | null;
  live_status: string | null;
  live_ready_at: Date | null;
  live_lease_until: Date | null;
  pending_replacement: boolean;
  replacement_to_submit: boolean;
};

/**
 * Keyset pagination on (column, id), either way round, so page 1,000 costs
 * what page 1 costs. Open cases unless a state is asked for; open cases have indexes of their own
 * (`state <> 'resolved'` is spelled out in the SQL so the planner can match them). One statement
 * for the page (a search first counts its matches: see case-filter.ts), reading only the columns
 * the page shows.
 */
export async function listCases(db: Db, actor: Principal, query: ListCasesQuery, now = new Date()) {
  requirePermission(actor, "case:read");
  const cursor = decodeCursor(query.cursor, query.sort);
  const after = cursor ? [afterCursorSql(query.sort, cursor)] : [];
  // An ID pasted in full, the most common search, is one statement: the page of its exact matches.
  // Found, that is the page the full search gives (it matches whole IDs first); empty, the text may
  // be part of an ID, or match only outside the view, and the full search decides.
  let rows: Row[] = [];
  if (query.q !== undefined && query.q.length >= PARTIAL_SEARCH_MIN) {
    const exact = await viewConditions(db, actor, query, now, { exactIds: true });
    rows = await sqlRows<Row>(db, pageStatement([...exact, ...after], query));
  }
  if (rows.length === 0) {
    const where = [
      ...(await viewConditions(db, actor, query, now, { page: { cursor: after, rows: query.limit + 1 } })),
      ...after,
    ];
    rows = await sqlRows<Row>(db, pageStatement(where, query));
  }
  const page = rows.slice(0, query.limit);
  const jobUnknown = await jobsUnknown(db, page);
  const last = page.at(-1);
  const nextCursor =
    rows.length > query.limit && last
      ? cursorAfter(
          {
            id: last.id,
            openedAt: last.opened_at,
            heldMicros: last.held_micros,
            stage: last.stage,
            provider: last.provider,
            lastAttemptAt: last.last_attempt_at,
          },
          query.sort,
        )
      : null;
  return {
    items: page.map((row) => ({
      id: row.id,
      operationId: row.operation_id,
      attemptId: row.attempt_id,
      stage: row.stage,
      state: row.state,
      provider: row.provider,
      model: row.model,
      providerJobId: row.provider_job_id,
      heldMicros: Number(row.held_micros),
      currency: row.currency,
      assigneeId: row.assignee_id,
      episode: row.episode,
      openedAt: row.opened_at.toISOString(),
      lastAttemptAt: row.last_attempt_at?.toISOString() ?? null,
      ageSeconds: Math.max(0, Math.floor((now.getTime() - row.opened_at.getTime()) / 1000)),
      escalationReason: row.escalation_reason,
      escalatedAt: row.escalated_at?.toISOString() ?? null,
      holdOpen: row.state === "resolved" && row.held_micros > 0n,
      ...progressOf(row, now, jobUnknown.has(row.id)),
    })),
    nextCursor,
  };
}

/** The page first, then what it waits on and its last recovery, looked up for its rows alone. */
function pageStatement(where: Prisma.Sql[], query: ListCasesQuery): Prisma.Sql {
  const order = orderSql(query.sort);
  const pageOrder = orderSql(query.sort, "page.");
  return Prisma.sql`
    WITH page AS (
      SELECT id, operation_id, attempt_id, stage, state, provider, model, provider_job_id, held_micros, currency,
             assignee_id, episode, opened_at, last_attempt_at, escalation_reason, escalated_at, outputs_unavailable_at IS NOT NULL AS outputs_unavailable
      FROM cases WHERE ${Prisma.join(where, " AND ")}
      ORDER BY ${order} LIMIT ${query.limit + 1}
    )
    SELECT page.*, last.id::text AS last_id, last.kind::text AS last_kind, last.status::text AS last_status,
           last.outcome AS last_outcome, last.finished_at AS last_at, said.evidence->>'evidence' AS last_reason, tries.n AS last_count, live.status::text AS live_status, live.ready_at AS live_ready_at,
           live.lease_until AS live_lease_until,
           EXISTS (SELECT 1 FROM replacement_requests r WHERE r.case_id = page.id AND r.status = 'pending')
             AS pending_replacement,
           EXISTS (SELECT 1 FROM replacement_requests r
                   WHERE r.case_id = page.id AND r.status = 'authorized' AND r.acknowledged_at IS NULL)
             AS replacement_to_submit
    FROM page
    LEFT JOIN LATERAL (
      SELECT a.id, a.kind, a.status, a.outcome, a.finished_at FROM recovery_actions a JOIN decisions d ON d.id = a.decision_id
      WHERE a.case_id = page.id AND d.episode = page.episode AND a.status IN ('succeeded', 'unresolved')
      ORDER BY a.finished_at DESC LIMIT 1) last ON TRUE
    LEFT JOIN LATERAL (
      SELECT count(*) AS n FROM recovery_actions a JOIN decisions d ON d.id = a.decision_id
      WHERE a.case_id = page.id AND d.episode = page.episode AND a.kind = last.kind
        AND a.status IN ('succeeded', 'unresolved')) tries ON last.id IS NOT NULL
    LEFT JOIN LATERAL (
      SELECT e.evidence FROM audit_events e
      WHERE e.case_id = page.id AND e.evidence->>'actionId' = last.id::text
      ORDER BY e.id DESC LIMIT 1) said ON last.id IS NOT NULL
    LEFT JOIN LATERAL (
      SELECT a.status, a.ready_at, a.lease_until FROM recovery_actions a
      WHERE a.case_id = page.id AND a.status IN ('ready', 'claimed') LIMIT 1) live ON TRUE
    ORDER BY ${pageOrder}`;
}

/**
 * The parked status checks whose last check the provider answered "not found", read exactly as the
 * case page and the decisions read it (decision 068): one more statement, only when the page has such
 * a case, so "waiting on" offers attaching a different job instead of checking again.
 */
async function jobsUnknown(db: Db, page: readonly Row[]): Promise<Set<string>> {
  const parked = page.filter((row) => row.state === "parked" && row.stage === "polling");
  const findings = await lastAttemptFindings(
    db,
    parked.map((row) => row.id),
  );
  return new Set(
    parked
      .filter((row) => futileRepeat(row.stage, findings.get(row.id) ?? null)?.reason === "job_unknown")
      .map((row) => row.id),
  );
}

function progressOf(row: Row, now: Date, jobUnknown: boolean) {
  const actions: ActionRecord[] =
    row.last_id && row.last_kind && row.last_status && row.last_at
      ? [
          {
            id: row.last_id,
            kind: row.last_kind,
            status: row.last_status,
            // The outcome tells a check that found the generation failed from one that failed itself.
            outcome: row.last_outcome,
            finishedAt: row.last_at.toISOString(),
          },
        ]
      : [];
  const last = lastAttempt(actions, { actionId: row.last_id, evidence: row.last_reason });
  return {
    // Only the last attempt is read for a row; how many of its kind this episode made is counted in SQL.
    lastAttempt: last && { ...last, count: Number(row.last_count ?? 1n) },
    waitingOn: waitingOn(
      {
        stage: row.stage,
        state: row.state,
        outputsUnavailable: row.outputs_unavailable,
        jobUnknown,
        holdOpen: row.state === "resolved" && row.held_micros > 0n,
        pendingReplacement: row.pending_replacement,
        replacementToSubmit: row.replacement_to_submit,
        readyAt: row.live_status === "ready" ? (row.live_ready_at?.toISOString() ?? null) : null,
        leaseUntil: row.live_status === "claimed" ? (row.live_lease_until?.toISOString() ?? null) : null,
      },
      now.getTime(),
    ),
  };
}
