import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import type { ConfiguredAdapters } from "@/lib/providers";
import { requireWorker, type WorkerActor } from "../access/actor";
import { FRESH_CHECK_KIND, lookForOriginalJob, type OriginalJobMatch, recordCheck } from "./look-for-original-job";

/** A lagging list shows a late job within hours, not days: replaced originals are watched this long. */
export const WATCH_AFTER_REPLACEMENT_MS = 24 * 60 * 60_000;
/** Between two looks for the same original ... */
export const WATCH_EVERY_MS = 30 * 60_000;
export const WATCH_PURPOSE = "after_replacement";

type Due = {
  request_id: string;
  case_id: string;
  original_attempt_ref: string;
  new_attempt_ref: string;
};

/**
 * Authorised replacements of a "no job exists" episode, recent enough to watch, not flagged yet,
 * and not looked at in the last WATCH_EVERY_MS.
 */
async function dueRequests(db: Db, now: Date, max: number): Promise<Due[]> {
  const since = new Date(now.getTime() - WATCH_AFTER_REPLACEMENT_MS).toISOString();
  const lastLook = new Date(now.getTime() - WATCH_EVERY_MS).toISOString();
  return db.$queryRaw<Due[]>`
    SELECT r.id::text AS request_id, r.case_id::text AS case_id,
           r.original_attempt_ref::text AS original_attempt_ref, r.new_attempt_ref::text AS new_attempt_ref
    FROM replacement_requests r
    WHERE r.status IN ('authorized', 'withdrawn') AND r.new_attempt_ref IS NOT NULL
      AND r.decided_at >= ${since}::timestamptz
      AND NOT EXISTS (SELECT 1 FROM suspected_duplicates d WHERE d.request_id = r.id)
      AND EXISTS (
        SELECT 1 FROM audit_events v
        JOIN audit_events a ON a.case_id = v.case_id AND a.episode = v.episode AND a.kind = 'replacement_authorized'
        WHERE v.case_id = r.case_id AND v.kind = 'reconciled_no_job' AND a.evidence ->> 'requestId' = r.id::text)
      AND NOT EXISTS (
        SELECT 1 FROM provider_observations o
        WHERE o.attempt_ref = r.original_attempt_ref AND o.kind = ${FRESH_CHECK_KIND}
          AND o.detail ->> 'purpose' = ${WATCH_PURPOSE} AND o.observed_at >= ${lastLook}::timestamptz)
    ORDER BY r.decided_at ASC
    LIMIT ${max}`;
}

export type WatchResult = { looked: number; flagged: number; withdrawn: number };

/**
 * Rule 14, afterwards: keeps looking for the original job of a replacement that rested on "no job
 * exists". When it turns up, both attempts may be charged: the pair is flagged for finance, and a
 * replacement the producer has not acknowledged yet is withdrawn so it is never submitted.
 */
export async function watchReplacedOriginals(
  ctx: { db: Db; adapters: ConfiguredAdapters },
  actor: Principal,
  options: { max?: number; now?: Date; signal?: AbortSignal } = {},
): Promise<WatchResult> {
  const worker = requireWorker(actor);
  const now = options.now ?? new Date();
  const result: WatchResult = { looked: 0, flagged: 0, withdrawn: 0 };
  for (const due of await dueRequests(ctx.db, now, options.max ?? 5)) {
    if (options.signal?.aborted) break;
    const original = await ctx.db.attempt.findUniqueOrThrow({
      where: { id: due.original_attempt_ref },
      include: { operation: { select: { requestFingerprint: true } } },
    });
    const kase = await ctx.db.case.findUniqueOrThrow({ where: { id: due.case_id } });
    const target = {
      id: kase.id,
      attemptRef: original.id,
      attemptId: original.attemptId,
      provider: kase.provider,
      model: kase.model,
      submittedAt: original.submittedAt,
      openedAt: original.createdAt,
      fingerprint: original.operation.requestFingerprint,
    };
    const check = await lookForOriginalJob(ctx.db, ctx.adapters, target, { kind: "watch" }, options.signal);
    if (options.signal?.aborted) break;
    await recordCheck(ctx.db, target, check, WATCH_PURPOSE);
    result.looked += 1;
    const match = check.kind === "found" ? check.matches[0] : undefined;
    if (!match) continue;
    const flagged = await flagSuspectedDuplicate(ctx.db, worker, due, match);
    if (flagged.flagged) result.flagged += 1;
    if (flagged.withdrawn) result.withdrawn += 1;
  }
  return result;
}

async function flagSuspectedDuplicate(db: Db, worker: WorkerActor, due: Due, match: OriginalJobMatch) {
  return inTransaction(db, async (tx) => {
    const inserted = await tx.$queryRaw<{ id: string }[]>`
      INSERT INTO suspected_duplicates (case_id, request_id, original_attempt_ref, replacement_attempt_ref, provider_job_id)
      VALUES (${due.case_id}::uuid, ${due.request_id}::uuid, ${due.original_attempt_ref}::uuid,
              ${due.new_attempt_ref}::uuid, ${match.job.providerJobId})
      ON CONFLICT (request_id) DO NOTHING
      RETURNING id::text AS id`;
    if (inserted.length === 0) return { flagged: false, withdrawn: false };
    const kase = await tx.case.findUniqueOrThrow({ where: { id: due.case_id }, select: { episode: true } });
    const holds = await tx.hold.findMany({
      where: { attemptRef: { in: [due.original_attempt_ref, due.new_attempt_ref] } },
      select: { holdId: true, attemptRef: true, amountMicros: true, currency: true, status: true },
    });
    const cost = (attemptRef: string) => {
      const hold = holds.find((h) => h.attemptRef === attemptRef);
      return hold
        ? { holdId: hold.holdId, amountMicros: Number(hold.amountMicros), currency: hold.currency, status: hold.status }
        : null;
    };
    const reason = `the original job ${match.job.providerJobId} turned up after the replacement was authorised`;
    // Only a replacement the producer has not taken yet can still be stopped: not acknowledged, and
    // its permit not reported on (the permit row is locked, so a report racing this waits for it).
    const [permit] = await tx.$queryRaw<{ id: string; status: string }[]>`
      SELECT id::text AS id, status::text AS status FROM send_permits
      WHERE attempt_ref = ${due.new_attempt_ref}::uuid FOR UPDATE`;
    const { count } =
      permit && permit.status !== "live"
        ? { count: 0 }
        : await tx.replacementRequest.updateMany({
            where: { id: due.request_id, status: "authorized", acknowledgedAt: null },
            data: { status: "withdrawn", closedReason: reason },
          });
    if (count === 1) {
      await tx.suspectedDuplicate.update({ where: { requestId: due.request_id }, data: { withdrawn: true } });
      // Its permit is void: a report on it is refused, and its deadline parks nothing (decision 036).
      if (permit) await tx.sendPermit.update({ where: { id: permit.id }, data: { status: "withdrawn" } });
    }
    await recordAudit(tx, {
      actor: worker,
      kind: "suspected_duplicate_flagged",
      caseId: due.case_id,
      episode: kase.episode,
      evidence: {
        text: reason,
        requestId: due.request_id,
        providerJobId: match.job.providerJobId,
        original: cost(due.original_attempt_ref),
        replacement: cost(due.new_attempt_ref),
      },
    });
    if (count === 1) {
      await recordAudit(tx, {
        actor: worker,
        kind: "replacement_withdrawn",
        caseId: due.case_id,
        episode: kase.episode,
        evidence: { text: reason, requestId: due.request_id },
      });
    }
    return { flagged: true, withdrawn: count === 1 };
  });
}
