import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import type { Prisma } from "@/lib/db/generated/prisma/client";
import type { Principal } from "@/lib/domain/principal";
import type { Stage } from "@/lib/domain/stages";

/** What a case is opened with, parked: the operation and attempt it recovers and what was registered. */
export type ParkedCaseFacts = {
  operationRef: string;
  attemptRef: string;
  producer: string;
  operationId: string;
  attemptId: string;
  provider: string;
  model: string;
  stage: Stage;
  providerJobId: string | null;
  requestFingerprint: string;
  heldMicros: bigint;
  currency: string;
  evidence: Prisma.InputJsonValue;
  submittedAt: Date | null;
  retryDeadline: Date | null;
};

/** A new case, parked at its first episode, with its `parked` audit row in the same transaction. */
export async function openParkedCase(tx: Db, actor: Principal, facts: ParkedCaseFacts): Promise<{ id: string }> {
  const created = await tx.case.create({
    data: {
      operationRef: facts.operationRef,
      attemptRef: facts.attemptRef,
      producer: facts.producer,
      operationId: facts.operationId,
      attemptId: facts.attemptId,
      provider: facts.provider,
      model: facts.model,
      stage: facts.stage,
      state: "parked",
      providerJobId: facts.providerJobId,
      registeredStage: facts.stage,
      registeredJobId: facts.providerJobId,
      registeredFingerprint: facts.requestFingerprint,
      heldMicros: facts.heldMicros,
      currency: facts.currency,
      lastEvidence: facts.evidence,
      submittedAt: facts.submittedAt,
      retryDeadline: facts.retryDeadline,
    },
    select: { id: true, version: true },
  });
  await recordAudit(tx, {
    actor,
    kind: "parked",
    caseId: created.id,
    episode: 1,
    after: { stage: facts.stage, state: "parked", providerJobId: facts.providerJobId, version: created.version },
    evidence: facts.evidence,
  });
  return { id: created.id };
}
