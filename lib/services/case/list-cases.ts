import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import type { Principal } from "@/lib/domain/principal";
import type { CaseState, Stage } from "@/lib/domain/stages";
import { AppError } from "@/lib/errors";
import type { ListCasesQuery } from "@/lib/validation/list-cases";
import { requirePermission } from "../access/actor";

type Cursor = { v: string; id: string };

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString("base64url");
}

/** The cursor of the page that follows a row, as the list issues it (for links made elsewhere). */
export function cursorAfter(row: { id: string; openedAt: Date; heldMicros: bigint }, sort: ListCasesQuery["sort"]) {
  return encodeCursor({ v: sort === "age" ? row.openedAt.toISOString() : row.heldMicros.toString(), id: row.id });
}

function decodeCursor(raw: string | undefined, sort: ListCasesQuery["sort"]): Cursor | null {
  if (!raw) return null;
  try {
    const value = JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) as Cursor;
    const valid =
      typeof value.v === "string" &&
      typeof value.id === "string" &&
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value.id) &&
      (sort === "age" ? !Number.isNaN(Date.parse(value.v)) : /^\d{1,19}$/.test(value.v));
    if (valid) return value;
  } catch {}
  throw new AppError("invalid_request", "The cursor is not one this API issued.");
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
  escalation_reason: string | null;
};

/**
 * Keyset pagination: by age (oldest first) on (opened_at, id), or by money (largest first) on
 * (held_micros, id), so page 1,000 costs what page 1 costs. Open cases unless a state is asked for;
 * open cases have indexes of their own (`state <> 'resolved'` is spelled out in the SQL so the
 * planner can match them). One statement, reading only the columns the page shows.
 */
export async function listCases(db: Db, actor: Principal, query: ListCasesQuery, now = new Date()) {
  requirePermission(actor, "case:read");
  const cursor = decodeCursor(query.cursor, query.sort);
  const where: Prisma.Sql[] = [
    query.state
      ? Prisma.sql`state = ${query.state}::"CaseState"`
      : query.flag === "hold_open"
        ? Prisma.sql`state = 'resolved'`
        : Prisma.sql`state <> 'resolved'`,
  ];
  // Spelled as the partial indexes' predicates, so each flag reads only its own few rows.
  if (query.flag === "hold_open") where.push(Prisma.sql`state = 'resolved' AND held_micros > 0`);
  if (query.flag === "escalated") where.push(Prisma.sql`state <> 'resolved' AND escalated_at IS NOT NULL`);
  if (query.stage) where.push(Prisma.sql`stage = ${query.stage}::"Stage"`);
  if (query.provider) where.push(Prisma.sql`provider = ${query.provider}`);
  if (query.model) where.push(Prisma.sql`model = ${query.model}`);
  if (query.assigneeId) where.push(Prisma.sql`assignee_id = ${query.assigneeId}::uuid`);
  if (query.minAgeSeconds !== undefined)
    where.push(Prisma.sql`opened_at <= ${new Date(now.getTime() - query.minAgeSeconds * 1000)}`);
  if (query.minAmountMicros !== undefined) where.push(Prisma.sql`held_micros >= ${BigInt(query.minAmountMicros)}`);
  if (query.q)
    where.push(Prisma.sql`(operation_id = ${query.q} OR attempt_id = ${query.q} OR provider_job_id = ${query.q})`);
  if (cursor && query.sort === "age")
    where.push(Prisma.sql`(opened_at, id) > (${new Date(cursor.v)}, ${cursor.id}::uuid)`);
  if (cursor && query.sort === "amount")
    where.push(Prisma.sql`(held_micros, id) < (${BigInt(cursor.v)}, ${cursor.id}::uuid)`);
  const order = query.sort === "age" ? Prisma.sql`opened_at, id` : Prisma.sql`held_micros DESC, id DESC`;
  const rows = await sqlRows<Row>(
    db,
    Prisma.sql`
    SELECT id, operation_id, attempt_id, stage, state, provider, model, provider_job_id, held_micros, currency,
           assignee_id, episode, opened_at, escalation_reason
    FROM cases WHERE ${Prisma.join(where, " AND ")}
    ORDER BY ${order} LIMIT ${query.limit + 1}`,
  );
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  const nextCursor =
    rows.length > query.limit && last
      ? cursorAfter({ id: last.id, openedAt: last.opened_at, heldMicros: last.held_micros }, query.sort)
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
      ageSeconds: Math.max(0, Math.floor((now.getTime() - row.opened_at.getTime()) / 1000)),
      escalationReason: row.escalation_reason,
      holdOpen: row.state === "resolved" && row.held_micros > 0n,
    })),
    nextCursor,
  };
}
