import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { type AttemptFinding, futileRepeat } from "@/lib/domain/futile-repeat";
import type { RecoveryActionKind, Stage } from "@/lib/domain/stages";

type Row = {
  caseId: string;
  kind: RecoveryActionKind;
  status: string;
  outcome: string | null;
  answer: string | null;
};

/**
 * Each case's latest finished recovery of its current episode, with the provider's last answer to
 * it: what `futileRepeat` needs to tell whether repeating it can help (decision 061). One statement
 * for all the cases, so a dry run over hundreds of cases stays one round trip. A reviewer's attach
 * since that recovery finished names another job, so what it found no longer applies (decision 068).
 */
export async function lastAttemptFindings(db: Db, caseIds: readonly string[]): Promise<Map<string, AttemptFinding>> {
  if (caseIds.length === 0) return new Map();
  const rows = await db.$queryRaw<Row[]>(Prisma.sql`
    SELECT c.id::text AS "caseId", last.kind::text AS kind, last.status::text AS status, last.outcome,
           (SELECT o.kind FROM provider_observations o
            WHERE o.case_id = c.id AND o.action_id = last.id ORDER BY o.id DESC LIMIT 1) AS answer
    FROM cases c
    JOIN LATERAL (
      SELECT a.id, a.kind, a.status, a.outcome, a.finished_at FROM recovery_actions a JOIN decisions d ON d.id = a.decision_id
      WHERE a.case_id = c.id AND d.episode = c.episode AND a.finished_at IS NOT NULL
        AND a.status IN ('succeeded', 'unresolved')
      ORDER BY a.finished_at DESC, a.id DESC LIMIT 1
    ) last ON true
    WHERE c.id = ANY(${[...caseIds]}::uuid[])
      AND NOT EXISTS (SELECT 1 FROM decisions n
                      WHERE n.case_id = c.id AND n.episode = c.episode AND n.kind = 'reconcile_attach'
                        AND n.created_at >= last.finished_at)`);
  return new Map(
    rows.map((row) => [
      row.caseId,
      { kind: row.kind, failed: row.status === "unresolved", answer: row.answer, outcome: row.outcome },
    ]),
  );
}

/**
 * Whether the case's last status check found its job unknown to the provider (futileRepeat reason
 * `job_unknown`): the finding the decision reconciles such a job to check on (decision 068).
 */
export async function lastCheckFoundJobUnknown(db: Db, row: { id: string; stage: Stage }): Promise<boolean> {
  if (row.stage !== "polling") return false;
  const finding = (await lastAttemptFindings(db, [row.id])).get(row.id) ?? null;
  return futileRepeat(row.stage, finding)?.reason === "job_unknown";
}
