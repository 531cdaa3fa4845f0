import { recordAudit } from "@/lib/audit/writer";
import type { Db, Prisma } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { decideOutcome, type OutcomeReport, type PermitStatus } from "@/lib/domain/send-permits";
import { storedText } from "@/lib/domain/stored-text";
import { type VaultSettings, vaultPolicyOf } from "@/lib/domain/vault";
import type { Env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import type { OutcomeReportInput } from "@/lib/validation/permits";
import { requireProducer } from "../access/actor";
import { keepingRefusedClaims, recordJobOnAttempt } from "../case/job-owner";
import { requireReadableJobId } from "../case/provider-job-id";
import { releaseHeldMicros } from "../case/writer/facts";
import { settleCompletion } from "../hold/settle-completion";
import { tripBreakerIfDue } from "../provider-breaker/trip-breaker";
import { recordReportedOutputs } from "../vault/record-vault-intent";
import { attachJobToUncertainCase, PERMIT_FOR_PARKING, type PermitForParking, parkPermit } from "./park-permit";
import { reportAcceptedAtOnce } from "./report-accepted";

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
 * a second report ends in one outcome. The report is committed before the answer is sent. An
 * `accepted` report on a live permit is written by one statement first (report-accepted.ts); what
 * it cannot decide is decided here.
 */
export async function reportOutcome(
  db: Db,
  actor: Principal,
  attemptId: string,
  input: OutcomeReportInput,
  settings?: Pick<Env, "STORE_PROMPTS"> & VaultSettings,
): Promise<OutcomeResult> {
  const result = await reportOutcomeOnly(db, actor, attemptId, input, settings);
  // A completion the producer reports with its outputs is kept by the product (decision 075), after
  // the report's commit; the report's answer does not wait on, or depend on, the copy.
  if (input.outcome === "completed" && input.outputs && result.providerJobId && result.caseId === null) {
    const { operationId, outputs } = input;
    const producer = requireProducer(actor).name;
    await recordReportedOutputs(db, { producer, operationId, attemptId, outputs }, vaultPolicyOf(settings ?? {}));
  }
  return result;
}

async function reportOutcomeOnly(
  db: Db,
  actor: Principal,
  attemptId: string,
  input: OutcomeReportInput,
  settings?: Pick<Env, "STORE_PROMPTS">,
): Promise<OutcomeResult> {
  const producer = requireProducer(actor);
  const storePrompts = settings?.STORE_PROMPTS === "1";
  // The common report in one statement when the permit and the job are as the rules expect (report-accepted.ts).
  const atOnce = await reportAcceptedAtOnce(db, producer, attemptId, input, { storePrompts });
  if (atOnce) return atOnce;
  return keepingRefusedClaims(db, actor, () =>
    inTransaction(db, async (tx) => {
      const [locked] = await tx.$queryRaw<(LockedPermit & { provider: string })[]>`
      SELECT p.id, a.provider, (SELECT max(l.token) FROM send_permits l WHERE l.operation_ref = p.operation_ref) AS latest
      FROM send_permits p
      JOIN operations o ON o.id = p.operation_ref JOIN attempts a ON a.id = p.attempt_ref
      WHERE o.producer = ${producer.name} AND o.operation_id = ${input.operationId} AND a.attempt_id = ${attemptId}
      FOR UPDATE OF p`;
      if (!locked) throw new AppError("not_found", "No permit was issued for this operation and attempt.");
      requireReadableJobId(locked.provider, input.providerJobId);
      const evidence = { ...input.evidence, outcome: input.outcome, token: input.token };
      return applyPermitReport(tx, producer, locked, {
        token: input.token,
        report: reportOf(input),
        evidence,
        note: storedText(input, { storePrompts }) as Prisma.InputJsonValue,
        storePrompts,
      });
    }),
  );
}

/** A permit locked for a report (FOR UPDATE), with the operation's latest token. */
export type LockedPermit = { id: string; latest: number };

/**
 * A report applied to a locked permit, whoever makes it: the producer under its token, or the
 * provider's own signed webhook (which names the job, so it speaks for the permit that owns it).
 */
export async function applyPermitReport(
  tx: Prisma.TransactionClient,
  actor: Principal,
  locked: LockedPermit,
  input: {
    token: number | null;
    report: OutcomeReport;
    evidence: Record<string, unknown>;
    note: Prisma.InputJsonValue;
    /** STORE_PROMPTS=1 for a producer's report: its evidence keeps full prompts (absent: their digest). */
    storePrompts?: boolean;
  },
): Promise<OutcomeResult> {
  const permit = await tx.sendPermit.findUniqueOrThrow({ where: { id: locked.id }, include: PERMIT_FOR_PARKING });
  if (permit.status === "withdrawn") {
    throw new AppError(
      "replacement_withdrawn",
      "This permit's replacement was withdrawn before it was sent (the original job turned up): the permit is void and takes no report.",
    );
  }
  const verdict = decideOutcome({ ...permit, latestToken: locked.latest }, input.token ?? permit.token, input.report);
  if (!verdict.ok) throw verdict.error;
  const effect = verdict.value;
  const { evidence, storePrompts = false } = input;
  // What the audit rows keep of it; the case writers take the evidence itself and store it the same way.
  const stored = storedText(evidence, { storePrompts }) as Prisma.InputJsonValue;
  const result = (status: PermitStatus, caseId: string | null, jobId: string | null, changed = true) => ({
    operationId: permit.operation.operationId,
    attemptId: permit.attempt.attemptId,
    status,
    providerJobId: jobId,
    caseId,
    changed,
  });
  if (effect.kind === "repeat") return result(permit.status, permit.caseRef, permit.providerJobId, false);
  // The database's clock, which the overdue sweep compares it with (park-overdue-permits.ts).
  await tx.$executeRaw`UPDATE send_permits SET last_report = ${JSON.stringify(input.note)}::jsonb, reported_at = now() WHERE id = ${permit.id}::uuid`;
  switch (effect.kind) {
    case "record_job":
      await recordJob(tx, actor, permit, effect.providerJobId);
      await setStatus(tx, permit.id, effect.next, effect.providerJobId);
      await audit(tx, actor, "permit_accepted", permit, { providerJobId: effect.providerJobId }, stored);
      return result(effect.next, null, effect.providerJobId);
    case "close_rejected":
      // Rule 6: nothing was bought, yet only finance releases the hold; the answer is its evidence.
      await setStatus(tx, permit.id, effect.next, null);
      await audit(tx, actor, "permit_rejected", permit, { holdAwaits: "finance" }, stored);
      return result(effect.next, null, null);
    case "settle":
      await recordJob(tx, actor, permit, effect.providerJobId);
      await setStatus(tx, permit.id, effect.next, effect.providerJobId);
      await settleOnCompletion(tx, actor, permit, stored);
      return result(effect.next, null, effect.providerJobId);
    case "park": {
      const { caseId } = await parkPermit(tx, {
        permit,
        actor,
        stage: effect.stage,
        providerJobId: effect.providerJobId,
        next: effect.next,
        evidence,
        storePrompts,
      });
      // An unknown outcome may open the provider's breaker (decision 037); other outcomes cannot raise the share.
      if (input.report.kind === "unknown")
        await tripBreakerIfDue(tx, actor, permit.operation.provider, permit.producer);
      return result(effect.next, caseId, effect.providerJobId);
    }
    case "attach": {
      if (!permit.caseRef) throw new AppError("conflict", "The permit has no case to attach the job to.");
      await attachJobToUncertainCase(tx, {
        actor,
        caseId: permit.caseRef,
        providerJobId: effect.providerJobId,
        text: `${reporter(actor)} named the job after the permit was parked`,
        evidence,
        storePrompts,
      });
      return result(permit.status, permit.caseRef, effect.providerJobId);
    }
  }
}

async function setStatus(tx: Prisma.TransactionClient, id: string, status: PermitStatus, job: string | null) {
  await tx.sendPermit.update({ where: { id }, data: { status, ...(job ? { providerJobId: job } : {}) } });
}

async function audit(
  tx: Prisma.TransactionClient,
  actor: Principal,
  kind: string,
  permit: PermitForParking & { token: number },
  after: Record<string, unknown>,
  evidence: Prisma.InputJsonValue,
) {
  await recordAudit(tx, {
    actor,
    kind,
    operationRef: permit.operationRef,
    // A permit's event has no case yet: the producer names whose operation it is (IDs are per producer).
    after: {
      producer: permit.producer,
      operationId: permit.operation.operationId,
      attemptId: permit.attempt.attemptId,
      token: permit.token,
      ...after,
    } as Prisma.InputJsonValue,
    evidence,
  });
}

/**
 * The job completed as the producer (or the provider's webhook) reports: the provider charged for
 * it, so the hold is settled for its whole amount, as the worker settles one on an observed completion.
 */
async function settleOnCompletion(
  tx: Prisma.TransactionClient,
  actor: Principal,
  permit: PermitForParking & { token: number },
  evidence: Prisma.InputJsonValue,
) {
  const settled = await settleCompletion(tx, actor, {
    holdRef: permit.holdRef,
    note: `settled on ${reporter(actor)} that the job completed`,
    how: reporter(actor),
  });
  await audit(tx, actor, "permit_completed", permit, { holdSettledMicros: Number(settled) }, evidence);
  // A replacement's hold is its case's from the authorisation (decision 036): the case holds that much
  // less, and its timeline carries the settlement, as a status check's completion does.
  const hold = await tx.hold.findUniqueOrThrow({
    where: { id: permit.holdRef },
    select: { caseId: true, case: { select: { episode: true } } },
  });
  if (!hold.caseId || settled === 0n) return;
  await releaseHeldMicros(tx, hold.caseId, settled);
  await recordAudit(tx, {
    actor,
    kind: "hold_settled",
    caseId: hold.caseId,
    episode: hold.case?.episode ?? null,
    before: { holdId: permit.hold.holdId, status: "held", amountMicros: Number(permit.hold.amountMicros) },
    after: { status: "settled", settledMicros: Number(settled) },
    evidence: { text: `charge is certain: ${reporter(actor)} says the job completed` },
  });
}

const recordJob = (tx: Prisma.TransactionClient, actor: Principal, permit: PermitForParking, providerJobId: string) =>
  recordJobOnAttempt(tx, actor, { attemptRef: permit.attemptRef, provider: permit.operation.provider, providerJobId });

/** Who made a report, in the words a timeline reads. */
export function reporter(actor: Principal): string {
  return actor.kind === "provider" ? `the ${actor.provider} webhook (signature verified)` : "the producer's report";
}
