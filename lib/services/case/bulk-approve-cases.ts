import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { isUniqueViolation } from "@/lib/db/unique-violation";
import { ownedBySomeoneElse } from "@/lib/domain/ownership";
import type { Principal } from "@/lib/domain/principal";
import { permittedRecoveryAction, type RecoveryActionKind } from "@/lib/domain/stages";
import { decide } from "@/lib/domain/transitions";
import { AppError } from "@/lib/errors";
import type { BulkApproveInput } from "@/lib/validation/bulk";
import { requirePermission, scopeOf, type UserActor } from "../access/actor";
import { consoleSettings } from "../admin/console-settings";
import { approveCase } from "./approve-case";
import { caseFilterConditions, scopeConditions } from "./case-filter";
import type { CaseRow, ChangeVia } from "./transition-case";
import { decidedChangesCtes, decidedChangesInput } from "./writer/batch";
import { countConflicts, snapshotOf } from "./writer/change";

export const DEFAULT_BULK_LIMIT = 500;

/**
 * The cases a bulk approval targets: parked in its stage, and either the ids picked or the queue's
 * filter exactly as the queue applies it (one set of conditions, so the preview, the approval and
 * the rows the operator saw cannot disagree, partial search included).
 */
async function targetConditions(
  db: Db,
  actor: Principal,
  stage: BulkApproveInput["stage"],
  target: BulkApproveInput["target"],
) {
  const base = [Prisma.sql`stage = ${stage}::"Stage"`, Prisma.sql`state = 'parked'`];
  if (target.kind === "ids")
    return Prisma.join(
      [...base, Prisma.sql`id = ANY(${target.caseIds}::uuid[])`, ...scopeConditions(scopeOf(actor))],
      " AND ",
    );
  return Prisma.join(
    [...base, ...(await caseFilterConditions(db, target.filter, scopeOf(actor), new Date()))],
    " AND ",
  );
}

/** What a bulk approval would touch: shown in the confirmation before anything is decided. */
export async function previewBulkApprove(
  db: Db,
  actor: Principal,
  input: Omit<BulkApproveInput, "evidence">,
  limit = DEFAULT_BULK_LIMIT,
) {
  requirePermission(actor, "case:approve");
  const where = await targetConditions(db, actor, input.stage, input.target);
  const perCurrency = await db.$queryRaw<{ currency: string; n: bigint; micros: bigint }[]>(
    Prisma.sql`SELECT currency, count(*) AS n, sum(held_micros)::bigint AS micros FROM cases WHERE ${where} GROUP BY currency`,
  );
  const count = perCurrency.reduce((sum, row) => sum + Number(row.n), 0);
  return {
    matching: count,
    willApprove: Math.min(count, limit),
    limit,
    heldByCurrency: perCurrency.map((row) => ({ currency: row.currency, micros: Number(row.micros) })),
  };
}

/** Cases per statement: short row locks and small statements, few enough round trips. */
const CHUNK = 500;

type Target = Pick<
  CaseRow,
  "id" | "stage" | "state" | "providerJobId" | "version" | "episode" | "outputsUnavailableAt" | "assigneeId"
>;
type Skipped = { caseId: string; code: string; message: string };

/**
 * Approves the stage's own recovery for many parked cases with one evidence note. Each case gets
 * its own decision (the pure function, on that case as read), decision row, action and audit
 * event, exactly as a single approval writes them, but 500 cases to a statement. A case that
 * changed since it was read (or is refused) goes through the single-case service, so bulk can never
 * do what one approval could not. Capped, oldest first; cases that moved on meanwhile are reported.
 */
export async function bulkApproveCases(db: Db, actor: Principal, input: BulkApproveInput, limit = DEFAULT_BULK_LIMIT) {
  const user = requirePermission(actor, "case:approve");
  const action = permittedRecoveryAction(input.stage);
  if (!action) throw new AppError("invalid_request", "Bulk approval is only for polling and delivery cases.");
  const targets = await db.$queryRaw<Target[]>(
    Prisma.sql`SELECT id::text, stage, state, provider_job_id AS "providerJobId", version, episode,
                      outputs_unavailable_at AS "outputsUnavailableAt", assignee_id::text AS "assigneeId"
               FROM cases WHERE ${await targetConditions(db, actor, input.stage, input.target)}
               ORDER BY opened_at, id LIMIT ${limit}`,
  );
  let approved = 0;
  const skipped: Skipped[] = [];
  // Cases someone else owns go to the single-case service, which refuses them with the reason.
  const { assignmentIsOwnership } = await consoleSettings(db);
  const person = { id: user.userId, roles: user.roles };
  const ownable = (target: Target) =>
    !ownedBySomeoneElse({ ownership: assignmentIsOwnership, assigneeId: target.assigneeId, person });
  for (let at = 0; at < targets.length; at += CHUNK) {
    const chunk = targets.slice(at, at + CHUNK);
    const written = await approveChunk(db, user, action, input.evidence, chunk.filter(ownable)).catch(
      (error: unknown) => {
        // A unique index caught a concurrent approval of one of these cases: the whole statement is
        // undone and each case is asked again, one at a time.
        if (isUniqueViolation(error)) return new Set<string>();
        throw error;
      },
    );
    approved += written.size;
    for (const { id } of chunk) {
      if (written.has(id)) continue;
      try {
        await approveCase(db, user, id, { action, evidence: input.evidence });
        approved += 1;
      } catch (error) {
        const known = error as { code?: string; message?: string };
        if (!known.code) throw error;
        skipped.push({ caseId: id, code: known.code, message: known.message ?? "" });
      }
    }
  }
  return { action, approved, skipped };
}

/**
 * A bulk action's approvals (decision 032), 500 cases to a statement: each previewed case still at
 * the version its dry run read gets its stage's own recovery, exactly as `bulkApproveCases` writes
 * it. Returns the cases approved; the caller takes every other one through the single-case path,
 * which says why it was left alone.
 */
export async function approvePreviewed(
  db: Db,
  user: UserActor,
  evidence: string,
  previewed: { id: string; version: number }[],
  via: ChangeVia,
): Promise<Set<string>> {
  const versions = new Map(previewed.map((seen) => [seen.id, seen.version]));
  const rows = await db.$queryRaw<Target[]>(
    Prisma.sql`SELECT id::text, stage, state, provider_job_id AS "providerJobId", version, episode,
                      outputs_unavailable_at AS "outputsUnavailableAt", assignee_id::text AS "assigneeId"
               FROM cases WHERE id = ANY(${[...versions.keys()]}::uuid[]) ORDER BY opened_at, id`,
  );
  // Cases someone else owns are left to the single-case path, which refuses them with the reason.
  const { assignmentIsOwnership } = await consoleSettings(db);
  const person = { id: user.userId, roles: user.roles };
  const ownable = (row: Target) =>
    !ownedBySomeoneElse({ ownership: assignmentIsOwnership, assigneeId: row.assigneeId, person });
  const approved = new Set<string>();
  for (const stage of ["polling", "delivery"] as const) {
    const action = permittedRecoveryAction(stage);
    const targets = rows.filter((row) => row.stage === stage && row.version === versions.get(row.id) && ownable(row));
    if (!action) continue;
    for (let at = 0; at < targets.length; at += CHUNK) {
      const written = await approveChunk(db, user, action, evidence, targets.slice(at, at + CHUNK), via).catch(
        (error: unknown) => {
          if (isUniqueViolation(error)) return new Set<string>();
          throw error;
        },
      );
      for (const id of written) approved.add(id);
    }
  }
  return approved;
}

/**
 * One statement for a chunk: locks the cases (in id order, so two bulk approvals cannot deadlock),
 * and for each one still parked at the version read and without a live action, moves it to
 * `ready` and writes its audit event, decision and action. Returns the cases it approved.
 */
async function approveChunk(
  db: Db,
  user: UserActor,
  action: RecoveryActionKind,
  evidence: string,
  chunk: Target[],
  via?: ChangeVia,
): Promise<Set<string>> {
  const command = { type: "approve", action, evidence } as const;
  const auditEvidence = { text: evidence, action, ...via };
  const changes = chunk.flatMap((target) => {
    const seen = { ...target, caseId: target.id };
    const decision = decide(snapshotOf(seen), command);
    if (!decision.ok || !decision.changesState) return [];
    return [{ seen, decision, evidence: auditEvidence }];
  });
  if (changes.length === 0) return new Set();
  const written = await db.$queryRaw<{ id: string }[]>`
    WITH input AS (
      ${decidedChangesInput(changes)}
    ), locked AS MATERIALIZED (
      SELECT r.*, c.state = 'parked' AND c.version = r.version
               AND NOT EXISTS (SELECT 1 FROM recovery_actions a WHERE a.case_id = c.id AND a.status IN ('ready', 'claimed'))
               AS current
      FROM cases c JOIN input r ON r.id = c.id
      ORDER BY c.id
      FOR UPDATE OF c
    ), ${decidedChangesCtes({ actor: user, source: Prisma.sql`locked`, where: Prisma.sql`r.current` })}, decided AS (
      INSERT INTO decisions (case_id, episode, kind, action_kind, reviewer_id, evidence)
      SELECT l.id, l.episode, 'approve', ${action}::"RecoveryActionKind", ${user.userId}::uuid, ${evidence}
      FROM locked l JOIN moved m ON m.id = l.id
      RETURNING id, case_id
    ), acted AS (
      INSERT INTO recovery_actions (case_id, decision_id, kind, outputs_expire_at)
      SELECT d.case_id, d.id, ${action}::"RecoveryActionKind", c.outputs_expire_at
      FROM decided d JOIN cases c ON c.id = d.case_id
      RETURNING case_id
    )
    SELECT case_id AS id FROM acted`;
  countConflicts("approve", changes.length - written.length);
  return new Set(written.map((row) => row.id));
}
