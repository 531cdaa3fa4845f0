import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { escalatableSnapshots } from "@/lib/domain/escalation";
import type { Principal } from "@/lib/domain/principal";
import { requireWorker } from "../access/actor";
import { settlingPeriods } from "../admin/provider-settings";
import { escalationCtes } from "./writer/batch";

/**
 * Rule 13 (deadlines): open cases past the deadline their producer gave are flagged for people,
 * one statement per batch with the audit rows written by the same statement. Nothing else about
 * the case changes: no state, no version, no money (rule 6), so a reviewer or a worker holding the
 * case is never disturbed. Locked rows are skipped, and a row escalated by a concurrent sweep after
 * this one read it fails the re-check of `escalated_at IS NULL`, so each episode is escalated once.
 * An uncertain submission parked by its producer carries the producer's own deadline, which has
 * usually passed by the time it parks: its real deadline is that one plus the provider's settling
 * period, the moment "no job exists" may be recorded (`reconcileCase`); a send permit's park has the
 * period in its deadline already (decision 036). Escalating before that flagged cases in the minute
 * they were parked (decision 061).
 */
export async function escalateOverdueCases(db: Db, actor: Principal, limit = 200, now = new Date()): Promise<number> {
  const worker = requireWorker(actor);
  const targets = JSON.stringify(escalatableSnapshots());
  const settling = await settlingPeriods(db);
  const rows = await db.$queryRaw<{ escalated: bigint }[]>(Prisma.sql`
    WITH targets AS (
      SELECT t.stage::"Stage" AS stage, t.state::"CaseState" AS state, t.reason
      FROM jsonb_to_recordset(${targets}::jsonb) AS t(stage text, state text, reason text)
    ), settling AS (
      SELECT s.provider, s.seconds
      FROM jsonb_to_recordset(${JSON.stringify(settling.periods)}::jsonb) AS s(provider text, seconds int)
    ), due AS (
      -- The index's own predicate is spelled out so the planner can use cases_escalation_due.
      SELECT c.id, t.reason FROM cases c JOIN targets t ON t.stage = c.stage AND t.state = c.state
      WHERE c.state <> 'resolved' AND c.escalated_at IS NULL AND c.retry_deadline IS NOT NULL
        AND c.retry_deadline < ${now}
        AND (c.stage <> 'submission_uncertain'
             OR EXISTS (SELECT 1 FROM send_permits p WHERE p.attempt_ref = c.attempt_ref)
             OR c.retry_deadline + make_interval(secs => coalesce(
                  (SELECT s.seconds FROM settling s WHERE s.provider = c.provider), ${settling.fallback})) < ${now})
      ORDER BY c.retry_deadline LIMIT ${limit}
      FOR NO KEY UPDATE OF c SKIP LOCKED
    ), ${escalationCtes({ actor: worker, source: Prisma.sql`due`, now })}
    SELECT count(*) AS escalated FROM escalated`);
  return Number(rows[0]?.escalated ?? 0);
}
