import { recordAudit } from "@/lib/audit/writer";
import type { Prisma } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import type { PermitStatus } from "@/lib/domain/send-permits";
import type { Stage } from "@/lib/domain/stages";
import { storedText } from "@/lib/domain/stored-text";
import { noJobSettlingSeconds } from "../admin/provider-settings";
import { recordJobOnAttempt } from "../case/job-owner";
import { type CaseRow, loadCase, transitionCase } from "../case/transition-case";
import { openParkedCase } from "../case/writer/open-case";
import { attachHoldToCase } from "../hold/writer/facts";

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
  hold: { holdId: string; amountMicros: bigint; currency: string; status: string; writtenOff: boolean };
};

export const PERMIT_FOR_PARKING = {
  operation: { select: { operationId: true, provider: true, model: true, requestFingerprint: true } },
  attempt: { select: { attemptId: true, providerJobId: true } },
  hold: { select: { holdId: true, amountMicros: true, currency: true, status: true, writtenOff: true } },
} as const;

/**
 * Parks a permit's send as a case (DESIGN 6a): on the permit's own attempt and hold, so the money
 * reserved at the permit stays on the one hold that is now the case's. An operation's first permit
 * opens its case; a later one (a replacement the product authorised, decision 036) opens the
 * operation's case again as a new episode, as a producer's new attempt on a resolved case does. The
 * case starts where the report (or the missed deadline) leaves it: an uncertain submission, a known
 * job to check, or a proven failure. The send happened after the permit was issued and no later
 * than its deadline: the submission's time, and a retry deadline a settling period after the send
 * deadline, before which a late job may still show up (so nothing is escalated while the
 * provider's own webhook can still answer).
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
    /** STORE_PROMPTS=1: the evidence keeps full prompts (absent: only their digest). */
    storePrompts?: boolean;
  },
): Promise<{ caseId: string }> {
  const { permit, providerJobId } = input;
  if (providerJobId && permit.attempt.providerJobId !== providerJobId) {
    await recordJobOnAttempt(tx, input.actor, {
      attemptRef: permit.attemptRef,
      provider: permit.operation.provider,
      providerJobId,
    });
  }
  const evidence = storedText(input.evidence, { storePrompts: input.storePrompts === true }) as Prisma.InputJsonValue;
  const settling = await noJobSettlingSeconds(tx, permit.operation.provider);
  const retryDeadline = new Date(permit.sendDeadline.getTime() + settling * 1000);
  const existing = await tx.case.findUnique({ where: { operationRef: permit.operationRef } });
  const caseId = existing
    ? await parkAsNewEpisode(tx, input, existing, evidence, retryDeadline)
    : await parkAsFirstCase(tx, input, evidence, retryDeadline);
  await tx.sendPermit.update({
    where: { id: permit.id },
    data: { status: input.next, caseRef: caseId, ...(providerJobId ? { providerJobId } : {}) },
  });
  return { caseId };
}

type ParkInput = Parameters<typeof parkPermit>[1];

async function parkAsFirstCase(
  tx: Prisma.TransactionClient,
  input: ParkInput,
  evidence: Prisma.InputJsonValue,
  retryDeadline: Date,
): Promise<string> {
  const { permit, stage, providerJobId } = input;
  const created = await openParkedCase(tx, input.actor, {
    operationRef: permit.operationRef,
    attemptRef: permit.attemptRef,
    producer: permit.producer,
    operationId: permit.operation.operationId,
    attemptId: permit.attempt.attemptId,
    provider: permit.operation.provider,
    model: permit.operation.model,
    stage,
    providerJobId,
    requestFingerprint: permit.operation.requestFingerprint,
    heldMicros: stillHeld(permit),
    currency: permit.hold.currency,
    evidence,
    submittedAt: permit.createdAt,
    retryDeadline,
  });
  await attachHoldToCase(tx, { holdRef: permit.holdRef, caseId: created.id });
  await recordHoldJoined(tx, input, created.id, 1);
  return created.id;
}

/**
 * The operation's case exists (an earlier episode, resolved: a replacement was authorised for it):
 * the permit's send opens the next episode on its own attempt. A replacement's hold joined the case
 * when finance authorised it; any other hold joins it here.
 */
async function parkAsNewEpisode(
  tx: Prisma.TransactionClient,
  input: ParkInput,
  row: CaseRow,
  evidence: Prisma.InputJsonValue,
  retryDeadline: Date,
): Promise<string> {
  const { permit, stage, providerJobId } = input;
  const hold = await tx.hold.findUniqueOrThrow({ where: { id: permit.holdRef }, select: { caseId: true } });
  const joins = hold.caseId === null;
  if (joins) await attachHoldToCase(tx, { holdRef: permit.holdRef, caseId: row.id });
  const episode = row.episode + 1;
  await transitionCase(tx, {
    row: { ...row, episode },
    actor: input.actor,
    command: { type: "reopen", stage, providerJobId },
    evidence,
    extra: {
      registeredStage: stage,
      registeredJobId: providerJobId,
      registeredFingerprint: permit.operation.requestFingerprint,
      lastEvidence: evidence,
      pollAttempts: 0,
      deliveryAttempts: 0,
      submittedAt: permit.createdAt,
      retryDeadline,
      episode: { increment: 1 },
      attemptRef: permit.attemptRef,
      attemptId: permit.attempt.attemptId,
      ...(joins ? { heldMicros: { increment: stillHeld(permit) } } : {}),
      assigneeId: null,
      outcome: null,
      resolvedAt: null,
      outputsExpireAt: null,
      escalatedAt: null,
      escalationReason: null,
      // A new episode has made no attempt yet (decision 069).
      lastAttemptAt: null,
      openedAt: new Date(),
    },
  });
  if (joins) await recordHoldJoined(tx, input, row.id, episode);
  return row.id;
}

/**
 * What the hold adds to the case's held total: its amount, unless finance resolved it before the
 * send parked (a write-off of a send still in flight, DESIGN rule 18).
 */
const stillHeld = (permit: PermitForParking): bigint => (permit.hold.status === "held" ? permit.hold.amountMicros : 0n);

/**
 * The case's timeline carries every hold it holds, as a case parked without a permit does, and the
 * decision finance took on it before the send parked (recorded then with no case to show it on).
 */
async function recordHoldJoined(tx: Prisma.TransactionClient, input: ParkInput, caseId: string, episode: number) {
  const { permit } = input;
  await recordAudit(tx, {
    actor: input.actor,
    kind: "hold_reserved",
    caseId,
    episode,
    after: {
      holdId: permit.hold.holdId,
      amountMicros: Number(permit.hold.amountMicros),
      currency: permit.hold.currency,
      reservedAt: permit.createdAt.toISOString(),
    },
    evidence: { text: "reserved when the send permit was issued; the case holds it from here" },
  });
  if (permit.hold.status !== "held") {
    await recordAudit(tx, {
      actor: input.actor,
      kind: "hold_decided_before_case",
      caseId,
      episode,
      before: { holdId: permit.hold.holdId, status: "held", amountMicros: Number(permit.hold.amountMicros) },
      after: { status: permit.hold.status, writtenOff: permit.hold.writtenOff },
      evidence: { text: "finance decided this hold while its send was in flight; the case carries the decision" },
    });
  }
}

/**
 * A job named for an operation's uncertain case by its own producer (a late report) or by the
 * provider's signed webhook carrying the operation's reference: recorded on the case's attempt and
 * attached (the case becomes a job to check). Attaching approves nothing (rule 2).
 */
export async function attachJobToUncertainCase(
  tx: Prisma.TransactionClient,
  input: {
    actor: Principal;
    caseId: string;
    providerJobId: string;
    text: string;
    evidence: Record<string, unknown>;
    storePrompts?: boolean;
  },
): Promise<void> {
  const { actor, providerJobId } = input;
  const row = await loadCase(tx, input.caseId, actor);
  await recordJobOnAttempt(tx, actor, { attemptRef: row.attemptRef, provider: row.provider, providerJobId });
  await transitionCase(tx, {
    row,
    actor,
    command: { type: "reconcile_attach", providerJobId, evidence: input.text },
    evidence: storedText(
      { ...input.evidence, text: input.text, providerJobId },
      { storePrompts: input.storePrompts === true },
    ) as Prisma.InputJsonValue,
    // The submission the deadline was about is answered: the episode is no longer overdue, and a job
    // to check has no submission deadline (its status checks carry it from here).
    extra: { escalatedAt: null, escalationReason: null, retryDeadline: null },
  });
  // Only this episode's permit: an earlier episode's send (a replaced attempt) keeps its own record.
  await tx.sendPermit.updateMany({
    where: { caseRef: input.caseId, attemptRef: row.attemptRef },
    data: { providerJobId },
  });
}
