import type { Db, Prisma } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { planSettle } from "@/lib/domain/holds";
import type { Principal } from "@/lib/domain/principal";
import { sanitise } from "@/lib/domain/sanitise";
import { decideOutcome, type OutcomeReport, type PermitStatus } from "@/lib/domain/send-permits";
import { AppError } from "@/lib/errors";
import type { OutcomeReportInput } from "@/lib/validation/permits";
import { actorColumns, type ProducerActor, requireProducer } from "../access/actor";
import { loadCase, transitionCase } from "../case/transition-case";
import { recordAudit } from "../case/writer/audit";
import { bookEntries } from "../hold/book-entries";
import { PERMIT_FOR_PARKING, type PermitForParking, parkPermit, recordPermitJob } from "./park-permit";

export type OutcomeResult = {
  operationId: string;
  attemptId: string;
  status: PermitStatus;
  providerJobId: string | null;
  caseId: string | null;
  /** False when the same report was already recorded and nothing changed. */
  changed: boolean;
};

function reportOf(input: OutcomeReportInput): OutcomeReport {
  const job = input.providerJobId ?? null;
  switch (input.outcome) {
    case "accepted":
      return { kind: "accepted", providerJobId: job ?? "" };
    case "rejected":
      return { kind: "rejected" };
    case "unknown":
      return { kind: "unknown" };
    case "completed":
      return { kind: "completed", providerJobId: job };
    case "failed":
      return { kind: "failed", providerJobId: job };
  }
}

/**
 * DESIGN 6a: the producer reports what its send came to, under the permit's token. The permit row
 * is locked for the decision (lib/domain/send-permits.ts), so a report racing the deadline sweep or
 * a second report ends in one outcome. The report is committed before the answer is sent.
 */
export async function reportOutcome(
  db: Db,
  actor: Principal,
  attemptId: string,
  input: OutcomeReportInput,
): Promise<OutcomeResult> {
  const producer = requireProducer(actor);
  return inTransaction(db, async (tx) => {
    const locked = await tx.$queryRaw<{ id: string; latest: number }[]>`
      SELECT p.id, (SELECT max(l.token) FROM send_permits l WHERE l.operation_ref = p.operation_ref) AS latest
      FROM send_permits p
      JOIN operations o ON o.id = p.operation_ref JOIN attempts a ON a.id = p.attempt_ref
      WHERE o.producer = ${producer.name} AND o.operation_id = ${input.operationId} AND a.attempt_id = ${attemptId}
      FOR UPDATE OF p`;
    if (!locked[0]) throw new AppError("not_found", "No permit was issued for this operation and attempt.");
    const permit = await tx.sendPermit.findUniqueOrThrow({ where: { id: locked[0].id }, include: PERMIT_FOR_PARKING });
    const verdict = decideOutcome({ ...permit, latestToken: locked[0].latest }, input.token, reportOf(input));
    if (!verdict.ok) throw verdict.error;
    const effect = verdict.value;
    const evidence = { ...input.evidence, outcome: input.outcome, token: input.token };
    const result = (status: PermitStatus, caseId: string | null, jobId: string | null, changed = true) => ({
      operationId: input.operationId,
      attemptId,
      status,
      providerJobId: jobId,
      caseId,
      changed,
    });
    if (effect.kind === "repeat") return result(permit.status, permit.caseRef, permit.providerJobId, false);
    await noteReport(tx, permit.id, input);
    switch (effect.kind) {
      case "record_job":
        await recordPermitJob(tx, permit, effect.providerJobId);
        await setStatus(tx, permit.id, effect.next, effect.providerJobId);
        await audit(tx, producer, "permit_accepted", permit, { providerJobId: effect.providerJobId }, evidence);
        return result(effect.next, null, effect.providerJobId);
      case "close_rejected":
        // Rule 6: nothing was bought, yet only finance releases the hold; the answer is its evidence.
        await setStatus(tx, permit.id, effect.next, null);
        await audit(tx, producer, "permit_rejected", permit, { holdAwaits: "finance" }, evidence);
        return result(effect.next, null, null);
      case "settle":
        if (permit.attempt.providerJobId !== effect.providerJobId) {
          await recordPermitJob(tx, permit, effect.providerJobId);
        }
        await setStatus(tx, permit.id, effect.next, effect.providerJobId);
        await settleOnCompletion(tx, producer, permit, evidence);
        return result(effect.next, null, effect.providerJobId);
      case "park": {
        const { caseId } = await parkPermit(tx, {
          permit,
          actor: producer,
          stage: effect.stage,
          providerJobId: effect.providerJobId,
          next: effect.next,
          evidence,
        });
        return result(effect.next, caseId, effect.providerJobId);
      }
      case "attach": {
        const caseId = await attachLateJob(tx, producer, permit, effect.providerJobId, evidence);
        return result(permit.status, caseId, effect.providerJobId);
      }
    }
  });
}

async function noteReport(tx: Prisma.TransactionClient, permitId: string, input: OutcomeReportInput) {
  await tx.sendPermit.update({
    where: { id: permitId },
    data: { lastReport: sanitise(input) as Prisma.InputJsonValue, reportedAt: new Date() },
  });
}

async function setStatus(tx: Prisma.TransactionClient, id: string, status: PermitStatus, job: string | null) {
  await tx.sendPermit.update({ where: { id }, data: { status, ...(job ? { providerJobId: job } : {}) } });
}

async function audit(
  tx: Prisma.TransactionClient,
  actor: ProducerActor,
  kind: string,
  permit: PermitForParking & { token: number },
  after: Record<string, unknown>,
  evidence: Record<string, unknown>,
) {
  await recordAudit(tx, {
    actor,
    kind,
    after: {
      operationId: permit.operation.operationId,
      attemptId: permit.attempt.attemptId,
      token: permit.token,
      ...after,
    } as Prisma.InputJsonValue,
    evidence: sanitise(evidence) as Prisma.InputJsonValue,
  });
}

/**
 * The producer polled its job to completion: the provider charged for it, so the hold is settled
 * for its whole amount, as the worker settles a hold on an observed completion (rule 7).
 */
async function settleOnCompletion(
  tx: Prisma.TransactionClient,
  producer: ProducerActor,
  permit: PermitForParking & { token: number },
  evidence: Record<string, unknown>,
) {
  const amount = Number(permit.hold.amountMicros);
  const plan = planSettle({ amountMicros: amount, status: "held" }, amount);
  if (!plan.ok) throw plan.error;
  const { count } = await tx.hold.updateMany({
    where: { id: permit.holdRef, status: "held" },
    data: { status: plan.value.status, settledMicros: BigInt(amount), resolvedAt: new Date() },
  });
  if (count === 0) return; // finance decided it already; the ledger keeps that decision
  await bookEntries(tx, {
    holdRef: permit.holdRef,
    entries: plan.value.entries,
    note: "settled on the producer's report that the job completed",
    actorLabel: actorColumns(producer).actorLabel,
  });
  await audit(tx, producer, "permit_completed", permit, { holdSettledMicros: amount }, evidence);
}

/**
 * A job reported after the permit was parked as uncertain: the producer's own create returned it,
 * so it is attached to that case (an uncertain submission becomes a job to check). Attaching
 * approves nothing (rule 2): a reviewer still decides the recovery.
 */
async function attachLateJob(
  tx: Prisma.TransactionClient,
  producer: ProducerActor,
  permit: PermitForParking & { caseRef: string | null },
  providerJobId: string,
  evidence: Record<string, unknown>,
): Promise<string> {
  if (!permit.caseRef) throw new AppError("conflict", "The permit has no case to attach the job to.");
  const row = await loadCase(tx, permit.caseRef);
  const summary = `the producer reported the provider's job after the permit was parked`;
  await transitionCase(tx, {
    row,
    actor: producer,
    command: { type: "reconcile_attach", providerJobId, evidence: summary },
    evidence: sanitise({ ...evidence, providerJobId }) as Prisma.InputJsonValue,
  });
  await recordPermitJob(tx, permit, providerJobId);
  await tx.sendPermit.update({ where: { id: permit.id }, data: { providerJobId } });
  return permit.caseRef;
}
