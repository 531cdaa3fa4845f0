import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { actorColumns, type Principal } from "@/lib/domain/principal";

export type AuditInput = {
  actor: Principal;
  kind: string;
  caseId?: string | null;
  /**
   * For an event without a case that belongs to an operation (a send permit before it parks): the
   * operation's own audit chain takes it, not the shared system chain (decision 059).
   */
  operationRef?: string | null;
  episode?: number | null;
  before?: Prisma.InputJsonValue | null;
  after?: Prisma.InputJsonValue | null;
  evidence?: Prisma.InputJsonValue | null;
};

/** One audit row, as the statement that makes the change writes it (the chain columns are the trigger's). */
export type AuditRow = {
  kind: string;
  before?: Prisma.InputJsonValue | null;
  after?: Prisma.InputJsonValue | null;
  evidence?: Prisma.InputJsonValue | null;
};

/** Called inside the transaction that makes the change, so the change and its record commit together. */
export async function recordAudit(tx: Db, input: AuditInput): Promise<void> {
  await tx.auditEvent.create({ data: auditData(input) });
}

/**
 * Rows that record a reading rather than a change (an evidence packet's export, on each case it
 * holds): one statement for all of them; each case's chain gets its row from the insert trigger.
 */
export async function recordAuditRows(db: Db, inputs: AuditInput[]): Promise<void> {
  if (inputs.length === 0) return;
  await db.auditEvent.createMany({ data: inputs.map(auditData) });
}

function auditData(input: AuditInput) {
  return {
    ...actorColumns(input.actor),
    kind: input.kind,
    caseId: input.caseId ?? null,
    operationRef: input.caseId ? null : (input.operationRef ?? null),
    episode: input.episode ?? null,
    ...(input.before != null ? { before: input.before } : {}),
    ...(input.after != null ? { after: input.after } : {}),
    ...(input.evidence != null ? { evidence: input.evidence } : {}),
  };
}

/** Absent keys read as SQL NULL in `jsonb_to_recordset`, as `recordAudit` leaves them NULL. */
function withoutNulls(row: AuditRow & { order: number; gated: boolean }) {
  return Object.fromEntries(Object.entries(row).filter(([, value]) => value != null));
}

/**
 * The audit rows of a change, for an `INSERT` inside the statement that makes it: one set of rows
 * for each row of `source` (which has the case `id`), in the order given. Rows marked `gated` are
 * written only where `gate` holds (a hold settled in the same statement, say).
 */
export function insertAuditRows(input: {
  source: Prisma.Sql;
  actor: Principal;
  episode: number;
  rows: Array<AuditRow & { gated?: boolean }>;
  gate?: Prisma.Sql;
}): Prisma.Sql {
  const { actorKind, actorId, actorLabel } = actorColumns(input.actor);
  const rows = input.rows.map((row, order) => withoutNulls({ ...row, order, gated: row.gated ?? false }));
  return Prisma.sql`INSERT INTO audit_events (case_id, episode, actor_kind, actor_id, actor_label, kind, before, after, evidence)
    SELECT s.id, ${input.episode}::int, ${actorKind}::"ActorKind", ${actorId}, ${actorLabel}, a.kind, a.before, a.after, a.evidence
    FROM ${input.source} s CROSS JOIN jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      AS a("order" int, gated boolean, kind text, before jsonb, after jsonb, evidence jsonb)
    WHERE NOT a.gated OR ${input.gate ?? Prisma.sql`FALSE`}
    ORDER BY a."order"`;
}

/**
 * One audit row with no case, on its operation's own chain (a send permit before it parks, decision
 * 059), for each row of `source` (which has the `operation_ref`), inside the statement that makes the change.
 */
export function insertCaselessAuditRow(input: {
  source: Prisma.Sql;
  actor: Principal;
  kind: string;
  after: Prisma.InputJsonValue;
}): Prisma.Sql {
  const { actorKind, actorId, actorLabel } = actorColumns(input.actor);
  return Prisma.sql`INSERT INTO audit_events (case_id, operation_ref, episode, actor_kind, actor_id, actor_label, kind, after)
    SELECT NULL, s.operation_ref, NULL, ${actorKind}::"ActorKind", ${actorId}, ${actorLabel}, ${input.kind}, ${JSON.stringify(input.after)}::jsonb
    FROM ${input.source} s`;
}

/**
 * `INSERT INTO audit_events` of the rows `select` yields, for a writer's single statement (the case
 * writer's batches and first episodes): its columns are case_id, episode, actor_kind, actor_id,
 * actor_label, kind, before, after, evidence, with `at` a created_at, and with `operation` an
 * operation_ref (the chain of an event without a case, decision 059). The chain's columns are the trigger's.
 */
export function insertAuditSelect(select: Prisma.Sql, options: { at?: boolean; operation?: boolean } = {}): Prisma.Sql {
  const createdAt = options.at ? Prisma.sql`, created_at` : Prisma.empty;
  const operation = options.operation ? Prisma.sql`, operation_ref` : Prisma.empty;
  return Prisma.sql`INSERT INTO audit_events (case_id, episode, actor_kind, actor_id, actor_label, kind, before, after, evidence${createdAt}${operation})
    ${select}`;
}
