import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { requirePermission } from "../access/actor";
import { recordDecision } from "./record-decision";
import { loadCase, transitionCase } from "./transition-case";

/** Reject (no recovery now) or escalate (needs someone else): recorded decisions, the case stays parked. */
export async function reviewCase(
  db: Db,
  actor: Principal,
  caseId: string,
  input: { verdict: "reject" | "escalate"; evidence: string },
) {
  const user = requirePermission(actor, "case:approve");
  return inTransaction(db, async (tx) => {
    const row = await loadCase(tx, caseId);
    await transitionCase(tx, {
      row,
      actor: user,
      command: { type: input.verdict, evidence: input.evidence },
      evidence: { text: input.evidence },
    });
    await recordDecision(tx, { row, actor: user, kind: input.verdict, evidence: input.evidence });
    return { caseId, verdict: input.verdict };
  });
}
