import { recordAudit } from "@/lib/audit/writer";
import type { Prisma } from "@/lib/db/client";
import { sanitise } from "@/lib/domain/sanitise";
import type { ProviderActor } from "../access/actor";
import { loadCase, transitionCase } from "../case/transition-case";

/**
 * A failure recorded without a job ("no job exists") that the job's own signed webhook
 * contradicts, as a provider check before paying does (rule 14): the case is an uncertain
 * submission again, ready for the job to be attached, and any replacement still waiting for
 * finance is withdrawn with the reason, since nothing may be bought to replace a job that exists.
 */
export async function contradictNoJobVerdict(
  tx: Prisma.TransactionClient,
  actor: ProviderActor,
  caseId: string,
  text: string,
  evidence: Record<string, unknown>,
): Promise<void> {
  const reason = `${text}: the "no job exists" verdict is contradicted`;
  const row = await loadCase(tx, caseId, actor);
  await transitionCase(tx, {
    row,
    actor,
    command: { type: "return_to_reconciliation", evidence: reason },
    evidence: sanitise({ ...evidence, text: reason }) as Prisma.InputJsonValue,
  });
  const pending = await tx.replacementRequest.findMany({ where: { caseId, status: "pending" }, select: { id: true } });
  for (const { id } of pending) {
    await tx.replacementRequest.update({
      where: { id },
      data: { status: "withdrawn", closedReason: reason.slice(0, 500), decidedAt: new Date() },
    });
    await recordAudit(tx, {
      actor,
      kind: "replacement_request_closed",
      caseId,
      episode: row.episode,
      evidence: { text: reason, requestId: id },
    });
  }
}
