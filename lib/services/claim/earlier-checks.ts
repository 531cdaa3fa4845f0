import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import type { PastCheck } from "@/lib/domain/provider-answer";

/**
 * The latest `limit` status checks of the case's current episode, newest first, with the claim
 * that made each: the facts behind the two-claims rule in lib/domain/provider-answer.ts. Read
 * before the current check is recorded, so it is not among them.
 */
export async function earlierChecks(db: Db, caseId: string, limit: number): Promise<PastCheck[]> {
  const rows = await sqlRows<{ kind: string; actionId: string | null; fencingToken: bigint | null }>(
    db,
    Prisma.sql`
    SELECT o.kind, o.action_id::text AS "actionId", o.fencing_token AS "fencingToken"
    FROM provider_observations o JOIN cases c ON c.id = o.case_id
    WHERE o.case_id = ${caseId}::uuid AND o.observed_at >= c.opened_at
      AND o.kind IN ('running', 'completed', 'failed', 'not_found', 'unknown', 'outputs_unavailable')
    ORDER BY o.id DESC
    LIMIT ${limit}`,
  );
  return rows.map((row) => ({ ...row, fencingToken: row.fencingToken === null ? null : Number(row.fencingToken) }));
}

/** One status check made under an action, as a reviewer reads it among the evidence. */
export type ActionCheck = { at: string; kind: string; providerStatus: string | null; reason: string | null };

/** Checks kept as evidence when an action stops at its bound; its first ones and its latest ones when there are more. */
const CHECKS_KEPT = 100;

/**
 * Every status check made under one action, oldest first (DESIGN rule 19: past its bound the case
 * parks with its attempts as evidence). An action's checks are bounded by its attempts; beyond
 * `CHECKS_KEPT` the middle ones are left to the observation log, which keeps them all.
 */
export async function checksUnderAction(db: Db, caseId: string, actionId: string): Promise<ActionCheck[]> {
  const rows = await sqlRows<{ at: Date; kind: string; providerStatus: string | null; reason: string | null }>(
    db,
    Prisma.sql`
    SELECT o.observed_at AS at, o.kind, o.provider_status AS "providerStatus", o.detail->>'reason' AS reason
    FROM provider_observations o
    WHERE o.case_id = ${caseId}::uuid AND o.action_id = ${actionId}::uuid
    ORDER BY o.id`,
  );
  const kept = rows.length > CHECKS_KEPT ? [...rows.slice(0, CHECKS_KEPT / 2), ...rows.slice(-CHECKS_KEPT / 2)] : rows;
  return kept.map((row) => ({ ...row, at: row.at.toISOString() }));
}
