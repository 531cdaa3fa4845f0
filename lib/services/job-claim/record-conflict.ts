import { recordAudit } from "@/lib/audit/writer";
import type { Db, Prisma } from "@/lib/db/client";
import type { ClaimDoor } from "@/lib/domain/job-claims";
import type { Principal } from "@/lib/domain/principal";
import { sanitise } from "@/lib/domain/sanitise";

/** Two claims on one job as a conflict row and both timelines name them. */
export type ClaimConflict = {
  provider: string;
  providerJobId: string;
  door: ClaimDoor;
  claimantAttemptRef: string;
  holderAttemptRef: string | null;
  reason: string;
};

/**
 * A claim that met another operation's claim or the provider's evidence, kept with the evidence,
 * and flagged on both operations' cases (or their permits' records, before they have one) with a
 * `job_claim_contested` event a reviewer reads on each timeline.
 */
export async function recordConflict(
  tx: Prisma.TransactionClient,
  actor: Principal,
  input: ClaimConflict & {
    outcome: "taken_from_holder" | "contested" | "transplant" | "refused";
    evidence: Record<string, unknown>;
  },
): Promise<void> {
  const evidence = sanitise(input.evidence) as Prisma.InputJsonValue;
  const conflict = await tx.jobClaimConflict.create({
    data: {
      provider: input.provider,
      providerJobId: input.providerJobId,
      door: input.door,
      outcome: input.outcome,
      claimantAttemptRef: input.claimantAttemptRef,
      holderAttemptRef: input.holderAttemptRef,
      reason: input.reason.slice(0, 500),
      evidence,
    },
    select: { id: true },
  });
  const sides = [
    { attemptRef: input.claimantAttemptRef, role: "claimant" },
    ...(input.holderAttemptRef ? [{ attemptRef: input.holderAttemptRef, role: "holder" }] : []),
  ];
  for (const side of sides) {
    const row = await tx.attempt.findUniqueOrThrow({
      where: { id: side.attemptRef },
      select: {
        attemptId: true,
        operationRef: true,
        operation: { select: { producer: true, operationId: true, case: true } },
      },
    });
    const kase = row.operation.case;
    await recordAudit(tx, {
      actor,
      kind: "job_claim_contested",
      caseId: kase?.id ?? null,
      operationRef: row.operationRef,
      episode: kase?.episode ?? null,
      after: {
        producer: row.operation.producer,
        operationId: row.operation.operationId,
        attemptId: row.attemptId,
        role: side.role,
        outcome: input.outcome,
        conflictId: Number(conflict.id),
      },
      // Each side's timeline names only its own operation: the other side's IDs (and the evidence
      // that names them) stay in job_claim_conflicts, where a person limited to some producers
      // does not read them (decision 035).
      evidence: {
        text: `${input.outcome.replaceAll("_", " ")}: ${input.reason}`.slice(0, 500),
        providerJobId: input.providerJobId,
        door: input.door,
      },
    });
  }
}

/** Retention's redaction of the evidence of claims on an operation's jobs (DESIGN rule 20); the rows stay as facts. */
export async function redactConflictEvidence(tx: Db, input: { operationRef: string; marker: string }): Promise<number> {
  const { operationRef, marker } = input;
  return tx.$executeRaw`
    UPDATE job_claim_conflicts SET evidence = ${marker}::jsonb
     WHERE (claimant_attempt_ref IN (SELECT id FROM attempts WHERE operation_ref = ${operationRef}::uuid)
            OR holder_attempt_ref IN (SELECT id FROM attempts WHERE operation_ref = ${operationRef}::uuid))
       AND NOT (evidence ? '$redacted')`;
}
