import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { type ClaimProof, heldClaimCtes } from "./lease-guard";

/**
 * The one shape of a claim holder's write. An attempt reads the rows it decides on, lets the pure
 * decision speak, and writes everything in one statement that re-checks the claim under the action
 * row lock and compares-and-sets on what it read. When those rows changed meanwhile it writes
 * nothing and answers `stale`; then the same attempt runs again inside a transaction that first
 * locks the claim's action and case rows (in the order every claim write takes them), so nothing
 * can change them under it and its answer, or its refusal, is final.
 */
export async function writeUnderClaim<T>(
  db: Db,
  proof: ClaimProof,
  attempt: (db: Db, locked: boolean) => Promise<T | "stale">,
  options: {
    /** Locks the write takes before any row (decision 072's digest locks), so its order stays one. */
    beforeRowLocks?: (tx: Db) => Promise<void>;
  } = {},
): Promise<T> {
  const answer = await attempt(db, false);
  if (answer !== "stale") return answer;
  return inTransaction(db, async (tx) => {
    await options.beforeRowLocks?.(tx);
    await tx.$queryRaw`WITH ${heldClaimCtes(proof)}
      SELECT c.id FROM cases c JOIN held ON c.id = held.case_id FOR UPDATE OF c`;
    const final = await attempt(tx, true);
    if (final === "stale") throw new Error("the claim's rows changed while this transaction held their locks");
    return final;
  });
}

/** A refusal on rows read without locks may be an old view speaking, so it is asked again under them. */
export function refuse(error: Error, locked: boolean): "stale" {
  if (locked) throw error;
  return "stale";
}
