import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { increment } from "@/lib/metrics/counters";
import { requireWorker } from "../access/actor";
import { PERMIT_FOR_PARKING, parkPermit } from "./park-permit";

export const OVERDUE_EVIDENCE = "no outcome reported by the deadline";

/**
 * DESIGN 6a: a live permit whose send deadline passed with no report is parked as an uncertain
 * submission by the product itself, its hold kept: a producer that crashed after sending can never
 * lose the case, nor send again blindly. Rows another sweep or a report holds are skipped; a
 * report that arrives after this commits finds the permit uncertain and can only add its job.
 */
export async function parkOverduePermits(db: Db, actor: Principal, limit = 100): Promise<number> {
  const worker = requireWorker(actor);
  // Most ticks find nothing due: one indexed read, no transaction.
  const any = await db.$queryRaw<unknown[]>`
    SELECT 1 FROM send_permits WHERE status = 'live' AND send_deadline <= now() LIMIT 1`;
  if (any.length === 0) return 0;
  const parked = await inTransaction(db, async (tx) => {
    const due = await tx.$queryRaw<{ id: string; send_deadline: Date }[]>`
      SELECT id, send_deadline FROM send_permits
      WHERE status = 'live' AND send_deadline <= now()
      ORDER BY send_deadline LIMIT ${limit}
      FOR UPDATE SKIP LOCKED`;
    for (const row of due) {
      const permit = await tx.sendPermit.findUniqueOrThrow({ where: { id: row.id }, include: PERMIT_FOR_PARKING });
      await parkPermit(tx, {
        permit,
        actor: worker,
        stage: "submission_uncertain",
        providerJobId: null,
        next: "uncertain",
        evidence: {
          summary: `${OVERDUE_EVIDENCE}: the create may have been sent`,
          observedAt: new Date().toISOString(),
          source: "send permit deadline",
          details: { sendDeadline: row.send_deadline.toISOString(), token: permit.token },
        },
      });
    }
    return due.length;
  });
  if (parked > 0) increment("recovery_permits_overdue_total", {}, parked);
  return parked;
}
