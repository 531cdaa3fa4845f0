import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { isUniqueViolation } from "@/lib/db/unique-violation";
import { scopeOf } from "@/lib/domain/producer-scope";
import { permittedRecoveryAction, type RecoveryActionKind } from "@/lib/domain/stages";
import { decide } from "@/lib/domain/transitions";
import type { UserActor } from "../access/actor";
import { approvedActionsInsert } from "../claim/writer/actions";
import { scopeConditions } from "./case-filter";
import { ownershipRule } from "./ownership-rule";
import type { CaseRow, ChangeVia } from "./transition-case";
import { decidedChangesCtes, decidedChangesInput } from "./writer/batch";
import { countConflicts, snapshotOf } from "./writer/change";

/** Cases per statement: short row locks and small statements, few enough round trips. */
const CHUNK = 500;

type Target = Pick<
  CaseRow,
  "id" | "stage" | "state" | "providerJobId" | "version" | "episode" | "outputsUnavailableAt" | "assigneeId"
>;

/**
 * A bulk action's approvals (decision 032), 500 cases to a statement: each previewed case still at
 * the version its dry run read, and still within the producers `user` may see as loaded for this
 * request (decision 054: a scope narrowed after the dry run counts), gets its stage's own recovery
 * with its own decision (the pure function, on that case as read), decision row, action and audit
 * event, exactly as one approval writes them. Returns the cases approved; the caller takes every
 * other one through the single-case path, which says why it was left alone (`not_found` outside the
 * scope), so bulk can never do what one approval could not.
 */
export async function approvePreviewed(
  db: Db,
  user: UserActor,
  evidence: string,
  previewed: { id: string; version: number }[],
  via: ChangeVia,
): Promise<Set<string>> {
  const versions = new Map(previewed.map((seen) => [seen.id, seen.version]));
  const where = [Prisma.sql`id = ANY(${[...versions.keys()]}::uuid[])`, ...scopeConditions(scopeOf(user))];
  const rows = await db.$queryRaw<Target[]>(
    Prisma.sql`SELECT id::text, stage, state, provider_job_id AS "providerJobId", version, episode,
                      outputs_unavailable_at AS "outputsUnavailableAt", assignee_id::text AS "assigneeId"
               FROM cases WHERE ${Prisma.join(where, " AND ")} ORDER BY opened_at, id`,
  );
  // Cases someone else owns (the setting may have changed since the dry run) are left to the
  // single-case path, which refuses them with the reason.
  const owned = ownershipRule(db, user);
  const current: Target[] = [];
  for (const row of rows)
    if (row.version === versions.get(row.id) && !(await owned("approve", row.assigneeId))) current.push(row);
  const approved = new Set<string>();
  for (const stage of ["polling", "delivery"] as const) {
    const action = permittedRecoveryAction(stage);
    const targets = current.filter((row) => row.stage === stage);
    if (!action) continue;
    for (let at = 0; at < targets.length; at += CHUNK) {
      const written = await approveChunk(db, user, action, evidence, targets.slice(at, at + CHUNK), via).catch(
        (error: unknown) => {
          // A unique index caught a concurrent approval of one of these cases: the whole statement
          // is undone and the caller asks each case again, one at a time.
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
  via: ChangeVia,
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
    ), acted AS (${approvedActionsInsert(Prisma.sql`decided`, action)}
    )
    SELECT case_id AS id FROM acted`;
  countConflicts("approve", changes.length - written.length);
  return new Set(written.map((row) => row.id));
}
