import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { requireWorker } from "../access/actor";
import { applyWaitingLines } from "../hold/apply-waiting-lines";

/**
 * The worker's round over usage lines that wait for their case's outcome (decision 077): a hold
 * whose send may no longer complete (its case left the uncertain submission or the job check, or
 * resolved, or the hold was decided meanwhile) gets its lines applied, one hold per transaction, as
 * an import would have. Holds whose outcome is still unknown are not read. Returns how many lines
 * were applied.
 */
export async function applyWaitingUsage(db: Db, actor: Principal, limit = 20): Promise<number> {
  requireWorker(actor);
  const due = await db.$queryRaw<{ hold_ref: string }[]>`
    SELECT DISTINCT u.hold_ref::text AS hold_ref
    FROM usage_lines u JOIN holds h ON h.id = u.hold_ref LEFT JOIN cases c ON c.id = h.case_id
      LEFT JOIN send_permits p ON p.hold_ref = h.id
    WHERE u.adjustment_micros IS NULL AND u.hold_ref IS NOT NULL
      AND NOT coalesce(h.status = 'held' AND c.state <> 'resolved' AND c.attempt_ref = h.attempt_ref
                       AND c.stage IN ('submission_uncertain', 'polling'), false)
      AND NOT coalesce(h.status = 'held' AND p.case_ref IS NULL AND p.status IN ('live', 'accepted'), false)
    LIMIT ${limit}`;
  let applied = 0;
  for (const { hold_ref } of due)
    applied += await inTransaction(db, (tx) => applyWaitingLines(tx, actor, { holdRef: hold_ref }));
  return applied;
}
