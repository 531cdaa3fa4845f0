import type { Prisma } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { sanitise } from "@/lib/domain/sanitise";
import type { PermitStatus } from "@/lib/domain/send-permits";
import type { Stage } from "@/lib/domain/stages";
import { recordJobOnAttempt } from "../case/job-owner";
import { loadCase, transitionCase } from "../case/transition-case";
import { recordAudit } from "../case/writer/audit";

/** A permit, with what parking it needs of its operation, attempt and hold. */
export type PermitForParking = {
  id: string;
  producer: string;
  operationRef: string;
  attemptRef: string;
  holdRef: string;
  createdAt: Date;
  sendDeadline: Date;
  operation: { operationId: string; provider: string; model: string; requestFingerprint: string };
  attempt: { attemptId: string; providerJobId: string | null };
  hold: { holdId: string; amountMicros: bigint; currency: string };
};

export const PERMIT_FOR_PARKING = {
  operation: { select: { operationId: true, provider: true, model: true, requestFingerprint: true } },
  attempt: { select: { attemptId: true, providerJobId: true } },
  hold: { select: { holdId: true, amountMicros: true, currency: true } },
} as const;

/**
 * Parks a permit's send as a case (DESIGN 6a): the operation's first case, on the permit's own
 * attempt and hold, so the money reserved at the permit stays on the one hold that is now the
 * case's. The case starts where the report (or the missed deadline) leaves it: an uncertain
 * submission, a known job to check, or a proven failure. The send happened after the permit was
 * issued, and could not happen after its report or its deadline, whichever came first: the
 * submission's time and retry deadline, from which "no job exists" waits out the settling period.
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
    await recordJobOnAttempt(tx, input.actor, {
      attemptRef: permit.attemptRef,
      provider: permit.operation.provider,
      providerJobId,
    });
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
      submittedAt: permit.createdAt,
      retryDeadline: earlier(permit.sendDeadline, new Date()),
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
  // The case's timeline carries every hold it holds, as a case parked without a permit does.
  await recordAudit(tx, {
    actor: input.actor,
    kind: "hold_reserved",
    caseId: created.id,
    episode: 1,
    after: {
      holdId: permit.hold.holdId,
      amountMicros: Number(permit.hold.amountMicros),
      currency: permit.hold.currency,
      reservedAt: permit.createdAt.toISOString(),
    },
    evidence: { text: "reserved when the send permit was issued; the case holds it from here" },
  });
  return { caseId: created.id };
}

/**
 * A job named for an operation's uncertain case by its own producer (a late report) or by the
 * provider's signed webhook carrying the operation's reference: recorded on the case's attempt and
 * attached (the case becomes a job to check). Attaching approves nothing (rule 2).
 */
export async function attachJobToUncertainCase(
  tx: Prisma.TransactionClient,
  input: { actor: Principal; caseId: string; providerJobId: string; text: string; evidence: Record<string, unknown> },
): Promise<void> {
  const { actor, providerJobId } = input;
  const row = await loadCase(tx, input.caseId, actor);
  await recordJobOnAttempt(tx, actor, { attemptRef: row.attemptRef, provider: row.provider, providerJobId });
  await transitionCase(tx, {
    row,
    actor,
    command: { type: "reconcile_attach", providerJobId, evidence: input.text },
    evidence: sanitise({ ...input.evidence, text: input.text, providerJobId }) as Prisma.InputJsonValue,
  });
  await tx.sendPermit.updateMany({ where: { caseRef: input.caseId }, data: { providerJobId } });
}

const earlier = (a: Date, b: Date) => (a.getTime() <= b.getTime() ? a : b);
