import type { Prisma } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/db/unique-violation";
import type { Principal } from "@/lib/domain/principal";
import { sanitise } from "@/lib/domain/sanitise";
import type { PermitStatus } from "@/lib/domain/send-permits";
import type { Stage } from "@/lib/domain/stages";
import { AppError } from "@/lib/errors";
import { recordAudit } from "../case/writer/audit";

/** A permit, with what parking it needs of its operation, attempt and hold. */
export type PermitForParking = {
  id: string;
  producer: string;
  operationRef: string;
  attemptRef: string;
  holdRef: string;
  operation: { operationId: string; provider: string; model: string; requestFingerprint: string };
  attempt: { attemptId: string; providerJobId: string | null };
  hold: { amountMicros: bigint; currency: string };
};

export const PERMIT_FOR_PARKING = {
  operation: { select: { operationId: true, provider: true, model: true, requestFingerprint: true } },
  attempt: { select: { attemptId: true, providerJobId: true } },
  hold: { select: { amountMicros: true, currency: true } },
} as const;

/** No job another operation owns can be recorded on this attempt (rule 11); the producer learns nothing more. */
export async function recordPermitJob(
  tx: Prisma.TransactionClient,
  permit: { attemptRef: string; operation: { provider: string } },
  providerJobId: string,
): Promise<void> {
  const owner = await tx.attempt.findUnique({
    where: { provider_providerJobId: { provider: permit.operation.provider, providerJobId } },
    select: { id: true },
  });
  if (owner && owner.id !== permit.attemptRef) throw jobInUse();
  try {
    await tx.attempt.update({
      where: { id: permit.attemptRef },
      data: { providerJobId, submittedAt: new Date() },
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw jobInUse();
    throw error;
  }
}

function jobInUse(): AppError {
  return new AppError("provider_job_in_use", "This provider job is already recorded for another operation or attempt.");
}

/**
 * Parks a permit's send as a case (DESIGN 6a): the operation's first case, on the permit's own
 * attempt and hold, so the money reserved at the permit stays on the one hold that is now the
 * case's. The case starts where the report (or the missed deadline) leaves it: an uncertain
 * submission, a known job to check, or a proven failure.
 */
export async function parkPermit(
  tx: Prisma.TransactionClient,
  input: {
    permit: PermitForParking;
    actor: Principal;
    stage: Stage;
    providerJobId: string | null;
    next: PermitStatus;
    evidence: Record<string, unknown>;
  },
): Promise<{ caseId: string }> {
  const { permit, stage, providerJobId } = input;
  if (providerJobId && permit.attempt.providerJobId !== providerJobId) {
    await recordPermitJob(tx, permit, providerJobId);
  }
  const evidence = sanitise(input.evidence) as Prisma.InputJsonValue;
  const created = await tx.case.create({
    data: {
      operationRef: permit.operationRef,
      attemptRef: permit.attemptRef,
      producer: permit.producer,
      operationId: permit.operation.operationId,
      attemptId: permit.attempt.attemptId,
      provider: permit.operation.provider,
      model: permit.operation.model,
      stage,
      state: "parked",
      providerJobId,
      registeredStage: stage,
      registeredJobId: providerJobId,
      registeredFingerprint: permit.operation.requestFingerprint,
      heldMicros: permit.hold.amountMicros,
      currency: permit.hold.currency,
      lastEvidence: evidence,
      submittedAt: new Date(),
    },
    select: { id: true, version: true },
  });
  await tx.hold.update({ where: { id: permit.holdRef }, data: { caseId: created.id } });
  await tx.sendPermit.update({
    where: { id: permit.id },
    data: { status: input.next, caseRef: created.id, ...(providerJobId ? { providerJobId } : {}) },
  });
  await recordAudit(tx, {
    actor: input.actor,
    kind: "parked",
    caseId: created.id,
    episode: 1,
    after: { stage, state: "parked", providerJobId, version: created.version },
    evidence,
  });
  return { caseId: created.id };
}
