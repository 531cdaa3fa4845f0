import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import type { Principal } from "@/lib/domain/principal";
import { decide } from "@/lib/domain/transitions";
import { increment } from "@/lib/metrics/counters";
import { requireWorker } from "../access/actor";
import { caseChange, countConflicts, snapshotOf } from "../case/writer/change";
import type { HeldCase } from "./lease-guard";

/** Claims that may end without finishing before an action is parked (WORKER_POISON_CLAIMS). */
export const DEFAULT_POISON_CLAIMS = 5;

type Failure = { fencingToken: number; error: string; at: string };
type Candidate = HeldCase & {
  actionId: string;
  kind: string;
  fencingToken: bigint;
  claimCount: number;
  failures: Failure[];
};

/**
 * Rule 13 for repeated worker failures: an action waiting for its next claim whose claims have
 * ended without a finish `threshold` times (errors, leases that ran out) is not claimed again.
 * Its case goes back to a reviewer (parked, through the same decision as every other change)
 * with each failure as evidence, and the action ends unresolved. Runs before each claim, right
 * after the lease rescue that records the last failure.
 */
export async function parkPoisonActions(
  db: Db,
  actor: Principal,
  options: { threshold: number; limit?: number },
): Promise<number> {
  const worker = requireWorker(actor);
  const candidates = await sqlRows<Candidate>(
    db,
    Prisma.sql`
    SELECT a.id AS "actionId", a.kind::text AS kind, a.fencing_token AS "fencingToken", a.claim_count AS "claimCount",
           a.failures, c.id AS "caseId", c.stage::text AS stage, c.state::text AS state,
           c.provider_job_id AS "providerJobId", c.version, c.episode
    FROM recovery_actions a JOIN cases c ON c.id = a.case_id
    WHERE a.status = 'ready' AND jsonb_array_length(a.failures) >= ${options.threshold}
    ORDER BY a.ready_at, a.id
    LIMIT ${options.limit ?? 50}`,
  );
  let parked = 0;
  for (const seen of candidates) {
    const text = `${seen.failures.length} claims of this action ended without finishing; it is not retried again`;
    const decision = decide(snapshotOf(seen), { type: "park_poison", evidence: text });
    // A case that moved on since it was read (a reviewer, another worker) is looked at next time.
    if (!decision.ok) continue;
    const evidence = { text, actionId: seen.actionId, claims: seen.claimCount, failures: seen.failures };
    const rows = await sqlRows<{ moved: bigint }>(
      db,
      Prisma.sql`
      WITH locked AS MATERIALIZED (
        -- Locked first, as a claim locks it, so a concurrent claim skips it or this skips it.
        SELECT a.id FROM recovery_actions a
        WHERE a.id = ${seen.actionId}::uuid AND a.status = 'ready' AND a.fencing_token = ${seen.fencingToken}
        FOR UPDATE SKIP LOCKED
      ), ${caseChange({
        decision,
        seen,
        actor: worker,
        evidence,
        // The action ends unresolved: the case's last attempt, which the queue sorts by (decision 069).
        set: Prisma.sql`last_attempt_at = now()`,
        from: Prisma.sql`locked`,
      })}, ended AS (
        UPDATE recovery_actions a
        SET status = 'unresolved', outcome = 'poison', lease_owner = NULL, lease_until = NULL, finished_at = now()
        FROM moved, locked WHERE a.id = locked.id
      )
      SELECT count(*) AS moved FROM moved`,
    );
    if (Number(rows[0]?.moved ?? 0) === 1) {
      parked += 1;
      increment("recovery_poison_actions_total", { kind: seen.kind });
    } else {
      countConflicts("park_poison");
    }
  }
  return parked;
}
