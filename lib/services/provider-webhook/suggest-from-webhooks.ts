import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { scoreListedJob } from "@/lib/domain/reconciliation-score";
import { requireWorker } from "../access/actor";
import { SUGGESTION_WINDOW_MS } from "../case/suggest-reconciliations";

/** Its own kind, so a webhook's suggestion never counts as one of the provider searches a case is due. */
export const WEBHOOK_SUGGESTION_AUDIT_KIND = "reconciliation_suggested_by_webhook";

type Kept = {
  id: bigint;
  provider: string;
  webhook_id: string;
  provider_job_id: string;
  provider_status: string | null;
  request_fingerprint: string | null;
  model: string | null;
  at: Date;
};
type Candidate = { id: string; episode: number; model: string; fingerprint: string; submitted_at: Date | null };

/**
 * DESIGN 8: a verified webhook about a job nobody owns, without a reference, becomes a
 * reconciliation suggestion on the uncertain submissions it may belong to (same provider, around
 * the job's creation time), with the attributes that matched: the provider's copy of the request
 * fingerprinted equal to the producer's is the strong one. A reviewer confirms (or not); nothing is
 * attached here. Each kept webhook is looked at once.
 */
export async function suggestFromWebhooks(db: Db, actor: Principal, limit = 20): Promise<number> {
  const worker = requireWorker(actor);
  const due = await db.$queryRaw<{ id: bigint }[]>`
    SELECT id FROM provider_webhooks WHERE outcome = 'unmatched' AND considered_at IS NULL ORDER BY id LIMIT ${limit}`;
  let suggested = 0;
  for (const { id } of due) {
    suggested += await inTransaction(db, async (tx) => {
      const [kept] = await tx.$queryRaw<Kept[]>`
        SELECT id, provider, webhook_id, provider_job_id, provider_status, request_fingerprint,
               model, coalesce(job_created_at, received_at) AS at
        FROM provider_webhooks WHERE id = ${id} AND considered_at IS NULL FOR UPDATE SKIP LOCKED`;
      if (!kept) return 0;
      await tx.$executeRaw`UPDATE provider_webhooks SET considered_at = now() WHERE id = ${id}`;
      const from = new Date(kept.at.getTime() - SUGGESTION_WINDOW_MS);
      const to = new Date(kept.at.getTime() + SUGGESTION_WINDOW_MS);
      const cases = await tx.$queryRaw<Candidate[]>`
        SELECT c.id::text AS id, c.episode, c.model, o.request_fingerprint AS fingerprint, c.submitted_at
        FROM cases c JOIN operations o ON o.id = c.operation_ref
        WHERE c.stage = 'submission_uncertain' AND c.state = 'parked' AND c.provider = ${kept.provider}
          AND coalesce(c.submitted_at, c.opened_at) BETWEEN ${from} AND ${to}
        ORDER BY c.opened_at LIMIT 50`;
      let stored = 0;
      for (const kase of cases) {
        const score = scoreListedJob(
          {
            createdAt: kept.at.toISOString(),
            ...(kept.model ? { model: kept.model } : {}),
            ...(kept.request_fingerprint ? { fingerprint: kept.request_fingerprint } : {}),
          },
          { model: kase.model, fingerprint: kase.fingerprint, submittedAt: kase.submitted_at },
        );
        if (!score) continue;
        await tx.$executeRaw`
          INSERT INTO reconciliation_suggestions
            (case_id, episode, provider_job_id, confidence, matched, provider_status, job_created_at)
          VALUES (${kase.id}::uuid, ${kase.episode}, ${kept.provider_job_id}, ${score.confidence},
                  ${JSON.stringify(score.matched)}::jsonb, ${kept.provider_status}, ${kept.at})
          ON CONFLICT (case_id, episode, provider_job_id) DO NOTHING`;
        await recordAudit(tx, {
          actor: worker,
          kind: WEBHOOK_SUGGESTION_AUDIT_KIND,
          caseId: kase.id,
          episode: kase.episode,
          evidence: {
            source: `${kept.provider} webhook (signature verified)`,
            webhookId: kept.webhook_id,
            providerJobId: kept.provider_job_id,
            confidence: score.confidence,
            matched: score.matched,
          },
        });
        stored += 1;
      }
      return stored;
    });
  }
  return suggested;
}
