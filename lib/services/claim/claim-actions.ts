import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import type { Principal } from "@/lib/domain/principal";
import type { RecoveryActionKind, Stage } from "@/lib/domain/stages";
import { stateMove } from "@/lib/domain/state-moves";
import { requireWorker } from "../access/actor";
import { stateMoveCtes } from "../case/writer/batch";
import type { ClaimProof } from "./lease-guard";
import { DEFAULT_POISON_CLAIMS } from "./park-poison-actions";

export type ClaimedAction = {
  actionId: string;
  caseId: string;
  kind: RecoveryActionKind;
  fencingToken: number;
  leaseUntil: Date;
  stage: Stage;
  providerJobId: string | null;
  /** Whom to ask and about what, and how many checks were made so far (the backoff grows with them). */
  provider: string;
  model: string;
  pollAttempts: number;
  /** Claims of this action, this one included, and when it was approved: where it stands against its bound (DESIGN rule 19). */
  claimCount: number;
  approvedAt: Date;
  /** The case's version and episode as this claim left them (what a finish compares against). */
  caseVersion: number;
  episode: number;
};

export const DEFAULT_LEASE_SECONDS = 60;

/**
 * No person's pause covers the action's case (decisions 064, 070, lib/domain/scope-pauses.ts in
 * SQL). The breaker's pauses are not read: the breaker stops new paid sends (decision 037), and a
 * recovery that would pay asks its own permit, which the gate refuses. The first test is
 * uncorrelated, so PostgreSQL runs it once per statement on the partial index of people's open
 * pauses (`pauses_people_open`): while nobody paused anything, a claim reads one empty index and no
 * case. Otherwise each candidate's case is read by its key and compared with the few pauses.
 */
export const NOT_PAUSED = Prisma.sql`(NOT EXISTS (SELECT 1 FROM pauses WHERE cause = 'person' AND resumed_at IS NULL)
  OR NOT EXISTS (
  SELECT 1 FROM cases pc JOIN pauses p
    ON (p.kind = 'provider' AND p.value = pc.provider) OR (p.kind = 'producer' AND p.value = pc.producer)
       OR (p.kind = 'model' AND p.value = pc.model)
  WHERE pc.id = a.case_id AND p.cause = 'person' AND p.resumed_at IS NULL))`;

/** Which cases a claim moves, and where: the decision's own answer, read once. */
const CLAIM = stateMove({ type: "claim" }, "ready");

/**
 * Rule 4 in one statement: lock up to `max` ready actions that no other worker is locking
 * (SKIP LOCKED), give each a lease and the next fencing token, move their cases to `claimed`, and
 * write one audit row per claim. Concurrent workers can never receive the same action. An action
 * whose claims have failed `poisonClaims` times is left for park-poison-actions.ts; one whose case a
 * person paused stays ready until the pause ends.
 */
export async function claimActions(
  db: Db,
  actor: Principal,
  options: { max: number; leaseSeconds?: number; poisonClaims?: number },
): Promise<ClaimedAction[]> {
  const worker = requireWorker(actor);
  const leaseSeconds = options.leaseSeconds ?? DEFAULT_LEASE_SECONDS;
  const rows = await sqlRows<Omit<ClaimedAction, "fencingToken"> & { fencingToken: bigint }>(
    db,
    Prisma.sql`
    WITH picked AS (
      SELECT a.id FROM recovery_actions a
      WHERE a.status = 'ready' AND a.ready_at <= now()
        AND jsonb_array_length(a.failures) < ${options.poisonClaims ?? DEFAULT_POISON_CLAIMS}
        AND ${NOT_PAUSED}
      -- Deliveries whose outputs expire soonest first (recovery_actions_ready_by_expiry): a copy
      -- that waits past the provider's retention can never succeed. Status checks follow.
      ORDER BY a.outputs_expire_at, a.ready_at, a.id
      LIMIT ${options.max}
      FOR UPDATE SKIP LOCKED
    ), claimed AS (
      UPDATE recovery_actions a
      SET status = 'claimed', lease_owner = ${worker.workerId},
          lease_until = now() + make_interval(secs => ${leaseSeconds}::int),
          fencing_token = a.fencing_token + 1, claim_count = a.claim_count + 1
      FROM picked WHERE a.id = picked.id
      RETURNING a.id, a.case_id, a.kind, a.fencing_token, a.lease_until, a.claim_count, a.created_at
    ), ${stateMoveCtes({
      move: CLAIM,
      actor: worker,
      source: Prisma.sql`claimed`,
      evidence: Prisma.sql`jsonb_build_object('actionId', s.id, 'fencingToken', s.fencing_token, 'workerId', ${worker.workerId}::text)`,
    })}
    SELECT c.id AS "actionId", c.case_id AS "caseId", c.kind::text AS kind, c.fencing_token AS "fencingToken",
           c.lease_until AS "leaseUntil", c.claim_count AS "claimCount", c.created_at AS "approvedAt", m.stage::text AS stage, m.provider_job_id AS "providerJobId",
           m.version AS "caseVersion", m.episode, m.provider, m.model, m.poll_attempts AS "pollAttempts"
    FROM claimed c JOIN moved m ON m.id = c.case_id
    ORDER BY c.lease_until, c.id`,
  );
  return rows.map((row) => ({ ...row, fencingToken: Number(row.fencingToken) }));
}

/** The proof a claim holder carries into every later write, with the case as the claim left it. */
export function proofOf(claimed: ClaimedAction, workerId: string): ClaimProof {
  const { actionId, fencingToken, caseId, stage, providerJobId, caseVersion, episode } = claimed;
  return {
    actionId,
    workerId,
    fencingToken,
    expectedCase: { caseId, stage, state: "claimed", providerJobId, version: caseVersion, episode },
  };
}
