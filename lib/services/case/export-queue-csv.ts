import { createHash } from "node:crypto";
import { stringify } from "csv-stringify/sync";
import { recordAuditRows } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { microsToAmount } from "@/lib/domain/money";
import type { Principal } from "@/lib/domain/principal";
import type { ListCasesQuery } from "@/lib/validation/list-cases";
import { requirePermission } from "../access/actor";
import { orderSql, viewConditions } from "./list-cases";

/** A queue file holds at most this many cases, the view's first in its order; the file says when it stops. */
export const QUEUE_EXPORT_CAP = 5_000;

export const QUEUE_EXPORTED = "queue_exported";

type Cell = string | number | null;

/**
 * A spreadsheet evaluates a cell starting with = + - @ (or a tab or carriage return) as a formula;
 * such text gets a leading quote, as the finance export's cells do. Numbers never need it.
 */
const shownNotEvaluated = (value: Cell): Cell =>
  typeof value === "string" && /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;

const toCsv = (header: string[], rows: Cell[][]) =>
  stringify([header, ...rows.map((row) => row.map(shownNotEvaluated))]);

// Read by the operation's own ID, as a person names it; amounts in micro-units and as a decimal,
// with the currency beside them (decision 063).
const HEADER = (
  "operation_id attempt_id producer stage state provider model provider_job_id " +
  "held_micros held_amount currency opened_at assigned_to escalated"
).split(" ");

type Row = {
  operation_id: string;
  attempt_id: string;
  producer: string;
  stage: string;
  state: string;
  provider: string;
  model: string;
  provider_job_id: string | null;
  held_micros: bigint;
  currency: string;
  opened_at: Date;
  assignee: string | null;
  escalated: boolean;
};

/**
 * The queue view (its filters, search and order, within the reader's producers) as CSV, the first
 * QUEUE_EXPORT_CAP cases of it. The export is audited, with the view and a digest of the file, before
 * the file leaves.
 */
export async function exportQueueCsv(db: Db, actor: Principal, query: ListCasesQuery, now = new Date()) {
  requirePermission(actor, "case:read");
  const view = { ...query, cursor: undefined };
  const where = await viewConditions(db, actor, view, now);
  const rows = await sqlRows<Row>(
    db,
    Prisma.sql`SELECT c.operation_id, c.attempt_id, c.producer, c.stage::text AS stage, c.state::text AS state,
                      c.provider, c.model, c.provider_job_id, c.held_micros, c.currency, c.opened_at,
                      u.name AS assignee, c.escalated_at IS NOT NULL AS escalated
               FROM (SELECT * FROM cases WHERE ${Prisma.join(where, " AND ")}
                     ORDER BY ${orderSql(query.sort)} LIMIT ${QUEUE_EXPORT_CAP + 1}) c
               LEFT JOIN users u ON u.id = c.assignee_id
               ORDER BY ${orderSql(query.sort, "c.")}`,
  );
  const truncated = rows.length > QUEUE_EXPORT_CAP;
  const kept = rows.slice(0, QUEUE_EXPORT_CAP);
  const body = toCsv(
    HEADER,
    kept.map((row) => [
      ...[row.operation_id, row.attempt_id, row.producer, row.stage, row.state],
      ...[row.provider, row.model, row.provider_job_id],
      Number(row.held_micros),
      microsToAmount(row.held_micros, row.currency),
      row.currency,
      row.opened_at.toISOString(),
      row.assignee,
      row.escalated ? "true" : "false",
    ]),
  );
  const sha256 = createHash("sha256").update(body, "utf8").digest("hex");
  const { cursor: _cursor, limit: _limit, ...filter } = view;
  await recordAuditRows(db, [
    {
      actor,
      kind: QUEUE_EXPORTED,
      evidence: { view: JSON.parse(JSON.stringify(filter)), rows: kept.length, truncated, sha256 },
    },
  ]);
  return {
    filename: `queue-${now.toISOString().slice(0, 10)}.csv`,
    body,
    rowCount: kept.length,
    truncated,
  };
}
