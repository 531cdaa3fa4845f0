import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";

/** Status checks of two separate claims that both came back "not found". */
const CHECKS_THAT_AGREE = 2;

/**
 * Whether the provider has answered "no such job" to the last status checks of this episode, each
 * made under a different claim. A single not-found can be a stale replica; the same answer again on
 * a later claim means the job (or the ID the producer gave) is not there to deliver from, so a
 * delivery that can only retry would otherwise stay parked forever (rule 13). Reads the observation
 * just recorded by the caller, which is why it runs after `recordObservation`.
 */
export async function providerForgotJob(db: Db, caseId: string): Promise<boolean> {
  const rows = await sqlRows<{ kind: string; claim: string }>(
    db,
    Prisma.sql`
    SELECT o.kind, coalesce(o.action_id::text, '') || ':' || coalesce(o.fencing_token::text, '') AS claim
    FROM provider_observations o JOIN cases c ON c.id = o.case_id
    WHERE o.case_id = ${caseId}::uuid AND o.observed_at >= c.opened_at
      AND o.kind IN ('running', 'completed', 'failed', 'not_found', 'unknown', 'outputs_unavailable')
    ORDER BY o.id DESC
    LIMIT ${CHECKS_THAT_AGREE}`,
  );
  return (
    rows.length === CHECKS_THAT_AGREE &&
    rows.every((row) => row.kind === "not_found") &&
    new Set(rows.map((row) => row.claim)).size === CHECKS_THAT_AGREE
  );
}
