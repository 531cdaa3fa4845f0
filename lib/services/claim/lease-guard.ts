import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import type { CaseState } from "@/lib/domain/stages";
import type { CaseSeen } from "../case/writer/change";

/** What every write by a claim holder must match: its action, its worker, its token, a live lease. */
export type ClaimProof = {
  actionId: string;
  workerId: string;
  fencingToken: number;
  /**
   * The case as the claim left it, when the holder knows it (the claim returns it). Never trusted:
   * a finish compares-and-sets against it, so a stale one costs a re-read, nothing more.
   */
  expectedCase?: HeldCase;
};

/**
 * Whether the action row (alias `a`) is still this proof's claim. Used as a value, never as a
 * filter: a filter on `status = 'claimed'` and `lease_until` lets the planner reach the row through
 * the partial lease index and walk every live claim instead of taking the primary key.
 */
export function claimIsHeld(proof: ClaimProof): Prisma.Sql {
  return Prisma.sql`(a.status = 'claimed' AND a.lease_owner = ${proof.workerId}
    AND a.fencing_token = ${BigInt(proof.fencingToken)} AND a.lease_until > now())`;
}

/**
 * Two CTEs for a statement that writes under a claim: `locked` takes the action row lock (by
 * primary key), `held` is that row only if this proof still holds the claim. Everything the
 * statement writes must hang off `held`, so a lost claim writes nothing.
 */
export function heldClaimCtes(proof: ClaimProof): Prisma.Sql {
  return Prisma.sql`locked AS MATERIALIZED (
      SELECT a.id, a.case_id, ${claimIsHeld(proof)} AS held FROM recovery_actions a
      WHERE a.id = ${proof.actionId}::uuid
      FOR UPDATE
    ), held AS (
      SELECT id, case_id FROM locked WHERE held
    )`;
}

/**
 * Follows `heldClaimCtes`, for a statement whose case update depends on other writes (so it cannot
 * go first and gate them): `kase` is the claim's case, locked, and only if it is still in the state
 * and version a decision was made on. Found by primary key with the check as a value, for the same
 * reason as `claimIsHeld`.
 */
export function currentCaseCtes(seen: { caseId: string; state: CaseState; version: number }): Prisma.Sql {
  return Prisma.sql`case_locked AS MATERIALIZED (
      SELECT c.id, c.attempt_ref, (c.state = ${seen.state}::"CaseState" AND c.version = ${seen.version}) AS current
      FROM cases c JOIN held ON c.id = held.case_id
      WHERE c.id = ${seen.caseId}::uuid
      FOR UPDATE OF c
    ), kase AS (
      SELECT id, attempt_ref FROM case_locked WHERE current
    )`;
}

/** The case as the claim saw it: what the writer's compare-and-set checks. */
export type HeldCase = Omit<CaseSeen, "outputsUnavailableAt">;

/**
 * The case behind a claim this worker still holds, read without a lock: what a compare-and-set
 * write then checks against. Null means the claim is not held (and with this token never will be).
 */
export async function readHeldCase(db: Db, proof: ClaimProof): Promise<HeldCase | null> {
  const rows = await sqlRows<HeldCase & { held: boolean }>(
    db,
    Prisma.sql`
    SELECT c.id AS "caseId", c.stage::text AS stage, c.state::text AS state, c.provider_job_id AS "providerJobId",
           c.version, c.episode, ${claimIsHeld(proof)} AS held
    FROM recovery_actions a JOIN cases c ON c.id = a.case_id
    WHERE a.id = ${proof.actionId}::uuid`,
  );
  const row = rows[0];
  if (!row?.held) return null;
  const { held: _, ...seen } = row;
  return seen;
}
