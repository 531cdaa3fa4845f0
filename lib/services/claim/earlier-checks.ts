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
