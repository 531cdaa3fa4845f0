import type { WebhookReference } from "@/lib/auth/webhook-reference";
import type { Prisma } from "@/lib/db/client";
import { judgeReference, type ProviderFacts } from "@/lib/domain/job-claims";
import { AppError } from "@/lib/errors";
import type { WebhookReport } from "@/lib/providers/types";
import type { ProviderActor } from "../access/actor";
import { attemptFacts, disownHolder, weighClaim } from "./claim-job";
import { recordConflict } from "./record-conflict";

/** Whether a verified webhook's reference may speak for its job, and what it did to a bare claim in the way. */
export type Admission = { kind: "admitted" } | { kind: "refused"; outcome: "transplant" | "contested"; note: string };

/**
 * Rule 17 at the webhook door: the signed `ref` on a webhook URL is not covered by the provider's
 * signature, so it counts only as far as the provider's own evidence agrees with it. The first
 * verified webhook carrying a reference on a job fixes the (reference's attempt, job) pair; a later
 * one pairing either with another, or one whose signed body contradicts the referenced send (the URL
 * it echoes, the request, model or creation time), is a transplant: kept as evidence, nothing
 * attached or settled. An admitted reference outranks a bare claim on the job: a holder with nothing
 * come of its claim yet is disowned (the reference then attaches the job the ordinary way); one whose
 * claim already had effects is contested, both flagged for a reviewer.
 */
export async function admitReference(
  tx: Prisma.TransactionClient,
  actor: ProviderActor,
  input: {
    report: WebhookReport;
    reference: WebhookReference;
    signedReference?: WebhookReference | null | undefined;
    webhookRowId: bigint;
  },
): Promise<Admission> {
  const { report, reference } = input;
  const { provider } = actor;
  const providerJobId = report.providerJobId;
  const [attempt] = await tx.$queryRaw<{ id: string }[]>`
    SELECT a.id FROM attempts a JOIN operations o ON o.id = a.operation_ref
    WHERE o.producer = ${reference.producer} AND o.operation_id = ${reference.operationId}
      AND a.attempt_id = ${reference.attemptId} AND o.provider = ${provider}`;
  // A reference to nothing this deployment sent names nobody: the webhook is read as if it had none.
  if (!attempt) return { kind: "admitted" };
  const [referenced, jobBinding, referenceBinding] = await Promise.all([
    attemptFacts(tx, attempt.id),
    tx.jobReference.findUnique({ where: { provider_providerJobId: { provider, providerJobId } } }),
    tx.jobReference.findUnique({ where: { attemptRef: attempt.id } }),
  ]);
  const facts: ProviderFacts = {
    fingerprint: report.requestFingerprint ?? null,
    model: report.model ?? null,
    createdAt: report.createdAt && !Number.isNaN(Date.parse(report.createdAt)) ? new Date(report.createdAt) : null,
  };
  const signed = input.signedReference;
  const verdict = judgeReference({
    referenced,
    jobBoundTo: jobBinding?.attemptRef ?? null,
    referenceBoundTo: referenceBinding?.providerJobId ?? null,
    providerJobId,
    signedRefMatches: signed === undefined ? null : signed !== null && sameReference(signed, reference),
    facts,
  });
  if (verdict.kind === "transplant") {
    await recordConflict(tx, actor, {
      provider,
      providerJobId,
      door: "reference",
      outcome: "transplant",
      claimantAttemptRef: attempt.id,
      holderAttemptRef: jobBinding && jobBinding.attemptRef !== attempt.id ? jobBinding.attemptRef : null,
      reason: verdict.reason,
      evidence: { webhookId: actor.webhookId, reference, facts },
    });
    return { kind: "refused", outcome: "transplant", note: `transplanted reference refused: ${verdict.reason}` };
  }
  if (verdict.kind === "bind") {
    const bound = await tx.jobReference.createMany({
      data: [{ provider, providerJobId, attemptRef: attempt.id, webhookRef: input.webhookRowId }],
      skipDuplicates: true,
    });
    if (bound.count !== 1) throw new AppError("lost_race", "Another webhook fixed this job's reference first.");
  }
  const weighed = await weighClaim(tx, { attemptRef: attempt.id, provider, providerJobId, door: "reference", facts });
  switch (weighed.verdict.kind) {
    case "keep":
    case "take":
      return { kind: "admitted" };
    case "take_from_holder":
      if (!weighed.holder) return { kind: "admitted" };
      await disownHolder(tx, actor, {
        provider,
        providerJobId,
        door: "reference",
        claimant: weighed.claimant,
        holder: weighed.holder,
        reason: weighed.verdict.reason,
        facts: weighed.facts,
      });
      return { kind: "admitted" };
    case "contest":
    case "refuse":
      await recordConflict(tx, actor, {
        provider,
        providerJobId,
        door: "reference",
        outcome: "contested",
        claimantAttemptRef: attempt.id,
        holderAttemptRef: weighed.holder?.attemptRef ?? null,
        reason: weighed.verdict.reason,
        evidence: { webhookId: actor.webhookId, reference, facts: weighed.facts },
      });
      return { kind: "refused", outcome: "contested", note: `contested: ${weighed.verdict.reason}` };
  }
}

const sameReference = (a: WebhookReference, b: WebhookReference) =>
  a.producer === b.producer && a.operationId === b.operationId && a.attemptId === b.attemptId;
