import type { Db, Prisma } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { increment } from "@/lib/metrics/counters";
import { requireWorker } from "../access/actor";
import { applyPermitReport } from "./report-outcome";

export const OVERDUE_EVIDENCE = "no outcome reported by the deadline";
/** An accepted send whose producer has not reported its end for this long is parked as a job to check. */
export const ACCEPTED_SILENCE_HOURS = 24;

type Due = { id: string; status: "live" | "accepted"; send_deadline: Date; reported_at: Date | null; latest: number };

/**
 * DESIGN 6a: the product speaks for a producer that went silent, through the same rules as the
 * producer's own report (an `unknown` outcome). A live permit whose send deadline passed is parked as
 * an uncertain submission: a producer that crashed after sending can never lose the case, nor send
 * again blindly. An accepted one whose completion was never reported within a day is parked as a job
 * to check, so its held money reaches people. Holds are kept either way. Rows another sweep or a
 * report holds are skipped; a report arriving after this commits finds the permit parked.
 */
export async function parkOverduePermits(db: Db, actor: Principal, limit = 100): Promise<number> {
  const worker = requireWorker(actor);
  // Most ticks find nothing due: one indexed read, no transaction.
  const any = await db.$queryRaw<unknown[]>`
    SELECT 1 FROM send_permits WHERE status = 'live' AND send_deadline <= now()
    UNION ALL
    SELECT 1 FROM send_permits
    WHERE status = 'accepted' AND case_ref IS NULL
      AND coalesce(reported_at, created_at) <= now() - make_interval(hours => ${ACCEPTED_SILENCE_HOURS})
    LIMIT 1`;
  if (any.length === 0) return 0;
  const parked = await inTransaction(db, async (tx) => {
    const due = await tx.$queryRaw<Due[]>`
      SELECT p.id, p.status::text AS status, p.send_deadline, p.reported_at,
             (SELECT max(l.token) FROM send_permits l WHERE l.operation_ref = p.operation_ref) AS latest
      FROM send_permits p
      WHERE (p.status = 'live' AND p.send_deadline <= now())
         OR (p.status = 'accepted' AND p.case_ref IS NULL
             AND coalesce(p.reported_at, p.created_at) <= now() - make_interval(hours => ${ACCEPTED_SILENCE_HOURS}))
      ORDER BY p.send_deadline LIMIT ${limit}
      FOR UPDATE OF p SKIP LOCKED`;
    for (const row of due) {
      const evidence =
        row.status === "live"
          ? {
              summary: `${OVERDUE_EVIDENCE}: the create may have been sent`,
              observedAt: new Date().toISOString(),
              source: "send permit deadline",
              details: { sendDeadline: row.send_deadline.toISOString() },
            }
          : {
              summary: `the provider accepted the send, and no completion was reported within ${ACCEPTED_SILENCE_HOURS} h`,
              observedAt: new Date().toISOString(),
              source: "send permit silence",
              details: { acceptedAt: row.reported_at?.toISOString() ?? null },
            };
      await applyPermitReport(tx, worker, row, {
        token: null,
        report: { kind: "unknown" },
        evidence,
        note: { source: evidence.source } as Prisma.InputJsonValue,
      });
    }
    return due.length;
  });
  if (parked > 0) increment("recovery_permits_overdue_total", {}, parked);
  return parked;
}
