import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { AppError } from "@/lib/errors";
import type { UserActor } from "../access/actor";
import type { OriginalJobMatch } from "./look-for-original-job";
import { loadCase, transitionCase } from "./transition-case";

/**
 * The found job becomes a suggestion, the case an uncertain submission again, and the request is
 * closed with the reason, all in one transaction; nothing is bought.
 */
export async function returnToReconciliation(
  db: Db,
  user: UserActor,
  found: { requestId: string; episode: number; matches: OriginalJobMatch[]; input: { evidence: string } },
) {
  await inTransaction(db, async (tx) => {
    await tx.$queryRaw`SELECT id FROM replacement_requests WHERE id = ${found.requestId}::uuid FOR UPDATE`;
    const request = await tx.replacementRequest.findUniqueOrThrow({ where: { id: found.requestId } });
    const row = await loadCase(tx, request.caseId, user);
    if (request.status !== "pending" || row.episode !== found.episode) {
      throw new AppError("lost_race", "Someone else decided this request first.");
    }
    const jobIds = found.matches.map((m) => m.job.providerJobId);
    const reason = `original job found at the provider: ${jobIds.join(", ")}`.slice(0, 500);
    await transitionCase(tx, {
      row,
      actor: user,
      command: { type: "return_to_reconciliation", evidence: reason },
      evidence: { text: reason, requestId: request.id, providerJobIds: jobIds, note: found.input.evidence },
    });
    // A dismissed suggestion is offered again: the provider shows it at the moment of paying.
    for (const { job, score } of found.matches) {
      const created = Date.parse(job.createdAt);
      await tx.$executeRaw`
        INSERT INTO reconciliation_suggestions
          (case_id, episode, provider_job_id, confidence, matched, provider_status, job_created_at)
        VALUES (${row.id}::uuid, ${row.episode}, ${job.providerJobId}, ${score.confidence},
                ${JSON.stringify(score.matched)}::jsonb, ${job.providerStatus},
                ${new Date(Number.isNaN(created) ? Date.now() : created).toISOString()}::timestamptz)
        ON CONFLICT (case_id, episode, provider_job_id) DO UPDATE
          SET status = 'open', confidence = EXCLUDED.confidence, matched = EXCLUDED.matched,
              provider_status = EXCLUDED.provider_status
          WHERE reconciliation_suggestions.status <> 'confirmed'`;
    }
    await tx.replacementRequest.update({
      where: { id: request.id },
      data: { status: "withdrawn", closedReason: reason, decidedById: user.userId, decidedAt: new Date() },
    });
    await recordAudit(tx, {
      actor: user,
      kind: "replacement_request_closed",
      caseId: row.id,
      episode: row.episode,
      evidence: { text: reason, requestId: request.id, providerJobIds: jobIds },
    });
  });
}
