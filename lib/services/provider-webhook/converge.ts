import { recordAudit } from "@/lib/audit/writer";
import type { Prisma } from "@/lib/db/client";
import { sanitise } from "@/lib/domain/sanitise";
import type { WebhookVerdict } from "@/lib/domain/webhook-evidence";
import { earliestExpiry } from "@/lib/providers/output-expiry";
import { statusForEvidence } from "@/lib/providers/outputs";
import type { WebhookReport } from "@/lib/providers/types";
import type { ProviderActor } from "../access/actor";
import { loadCase, transitionCase } from "../case/transition-case";
import { observedOutputs } from "../claim/record-observation";
import { settleCompletion } from "../hold/settle-completion";

/** What a webhook did, as its kept row says. */
export type Applied = { outcome: string; note: string | null; caseId: string | null };

/** A parked job check converges on the provider's word, with the settlement a completion makes certain. */
export async function converge(
  tx: Prisma.TransactionClient,
  actor: ProviderActor,
  caseId: string,
  report: WebhookReport,
  verdict: Extract<WebhookVerdict, { kind: "converge" }>,
  evidence: Record<string, unknown>,
): Promise<Applied> {
  const row = await loadCase(tx, caseId, actor);
  const hold = verdict.settle ? await tx.hold.findUnique({ where: { attemptRef: row.attemptRef } }) : null;
  const settled = hold
    ? await settleCompletion(tx, actor, {
        holdRef: hold.id,
        note: "settled on the provider's signed completion",
        how: `the ${actor.provider} webhook (signature verified)`,
      })
    : 0n;
  if (hold && settled > 0n) {
    await recordAudit(tx, {
      actor,
      kind: "hold_settled",
      caseId,
      episode: row.episode,
      before: { holdId: hold.holdId, status: "held", amountMicros: Number(hold.amountMicros) },
      after: { status: "settled", settledMicros: Number(settled) },
      evidence: { text: "charge is certain: the provider's signed webhook reports completion" },
    });
  }
  const expiry = earliestExpiry(report.status);
  await transitionCase(tx, {
    row,
    actor,
    command: { type: "observe_outcome", stage: verdict.stage, evidence: verdict.evidence },
    evidence: sanitise({ ...evidence, text: verdict.evidence }) as Prisma.InputJsonValue,
    extra: {
      ...(settled > 0n ? { heldMicros: { decrement: settled } } : {}),
      ...(expiry ? { outputsExpireAt: expiry } : {}),
    },
  });
  await tx.providerObservation.create({
    data: {
      caseId,
      attemptRef: row.attemptRef,
      kind: report.status.kind,
      providerStatus: "providerStatus" in report.status ? report.status.providerStatus : null,
      ...(report.status.kind === "completed"
        ? { outputs: JSON.parse(observedOutputs(report.status) ?? "[]") as Prisma.InputJsonValue }
        : {}),
      detail: sanitise({ ...statusForEvidence(report.status), via: "webhook" }) as Prisma.InputJsonValue,
    },
  });
  return { outcome: "converged", note: verdict.evidence, caseId };
}
