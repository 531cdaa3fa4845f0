import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { inTransaction } from "@/lib/db/transaction";
import type { AuditKind, CaseSnapshot } from "@/lib/domain/case-commands";
import { actorColumns, type WorkerActor } from "./actor";
import { snapshotOf } from "./case-writer/change";
import { type ClaimProof, type HeldCase, heldClaimCtes } from "./lease-guard";

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
): Promise<T> {
  const answer = await attempt(db, false);
  if (answer !== "stale") return answer;
  return inTransaction(db, async (tx) => {
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

/** The audit row of a case change a claim write made, hung off `moved` (the updated case row). */
export function auditMoved(
  worker: WorkerActor,
  seen: Omit<HeldCase, "caseId">,
  decision: { next: CaseSnapshot; auditKind: AuditKind },
  evidence: Prisma.InputJsonObject,
): Prisma.Sql {
  const { actorId, actorLabel } = actorColumns(worker);
  return Prisma.sql`INSERT INTO audit_events (case_id, episode, actor_kind, actor_id, actor_label, kind, before, after, evidence)
    SELECT moved.id, ${seen.episode}, 'worker', ${actorId}, ${actorLabel}, ${decision.auditKind},
           ${JSON.stringify({ ...snapshotOf(seen), version: seen.version })}::jsonb,
           ${JSON.stringify({ ...decision.next, version: seen.version + 1 })}::jsonb,
           ${JSON.stringify(evidence)}::jsonb
    FROM moved`;
}
