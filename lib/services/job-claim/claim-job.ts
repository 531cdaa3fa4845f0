import { Prisma } from "@/lib/db/generated/prisma/client";
import { isUniqueViolation } from "@/lib/db/unique-violation";
import {
  type ClaimantFacts,
  type ClaimDoor,
  type ClaimVerdict,
  type HolderFacts,
  judgeClaim,
  type ProviderFacts,
  refutedBy,
} from "@/lib/domain/job-claims";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import { disownCaseJob } from "../case/writer/disown-job";
import { PERMIT_FOR_PARKING, parkPermit } from "../permit/park-permit";
import { markRefused } from "./keep-refused-claim";
import { recordConflict } from "./record-conflict";

/** The owning attempt's case as a refusal may point at it (for a reviewer in scope only). */
export type RefusedOwner = { caseId: string; operationId: string; producer: string } | null;

/**
 * Rule 17: the one service every door uses to record a job on an attempt (a producer's report, a
 * park under a permit, a reviewer's attach or confirmed suggestion, a webhook's reference). It reads
 * the provider's evidence about the job (the reference it is fixed to, the facts of its signed
 * webhooks), asks the pure rule (lib/domain/job-claims.ts), and applies the answer: record the job,
 * refuse the claim, or take it from a bare claim that the evidence contradicts, whose operation is
 * disowned and flagged. The unique key on attempts still settles a race between two writers.
 */
export async function claimJob(
  tx: Prisma.TransactionClient,
  actor: Principal,
  target: { attemptRef: string; provider: string; providerJobId: string; door?: ClaimDoor },
  refused: (owner: RefusedOwner, reason: string | null) => AppError,
  moreFacts: ProviderFacts = {},
): Promise<void> {
  const { provider, providerJobId } = target;
  const door = target.door ?? doorOf(actor);
  const holderRef = await holderOf(tx, provider, providerJobId);
  if (holderRef === target.attemptRef) return;
  const [claimant, holder, boundTo, kept] = await Promise.all([
    attemptFacts(tx, target.attemptRef),
    holderRef ? holderFacts(tx, holderRef) : null,
    boundAttempt(tx, provider, providerJobId),
    keptFacts(tx, provider, providerJobId),
  ]);
  const facts = { ...kept, ...definedOnly(moreFacts) };
  const verdict = judgeClaim({ door, claimant, holder, boundTo, facts });
  switch (verdict.kind) {
    case "keep":
      return;
    case "refuse":
    case "contest": {
      const owner = holderRef ? await ownerCase(tx, holderRef) : null;
      // A claim the evidence contradicts says why; one the evidence leaves undecided names nothing.
      const error = refused(owner, verdict.kind === "contest" || !holder ? verdict.reason : null);
      const claimantAttemptRef = target.attemptRef;
      throw markRefused(error, {
        provider,
        providerJobId,
        door,
        claimantAttemptRef,
        holderAttemptRef: holderRef,
        reason: verdict.reason,
      });
    }
    case "take_from_holder":
      if (!holder) throw new AppError("lost_race", "The job's holder changed while it was read.");
      await disownHolder(tx, actor, { provider, providerJobId, door, claimant, holder, reason: verdict.reason, facts });
      break;
    case "take":
      break;
  }
  try {
    await tx.attempt.update({ where: { id: target.attemptRef }, data: { providerJobId } });
  } catch (error) {
    if (isUniqueViolation(error)) throw refused(null, null);
    throw error;
  }
}

/**
 * The verdict for a claim without applying it: for a webhook's reference, which attaches through the
 * ordinary path once the job is free, and keeps a contest as evidence instead of refusing it.
 */
export async function weighClaim(
  tx: Prisma.TransactionClient,
  input: { attemptRef: string; provider: string; providerJobId: string; door: ClaimDoor; facts: ProviderFacts },
): Promise<{ verdict: ClaimVerdict; holder: HolderFacts | null; claimant: ClaimantFacts; facts: ProviderFacts }> {
  const { provider, providerJobId } = input;
  const holderRef = await holderOf(tx, provider, providerJobId);
  const [claimant, holder, boundTo, kept] = await Promise.all([
    attemptFacts(tx, input.attemptRef),
    holderRef && holderRef !== input.attemptRef ? holderFacts(tx, holderRef) : null,
    boundAttempt(tx, provider, providerJobId),
    keptFacts(tx, provider, providerJobId),
  ]);
  const facts = { ...kept, ...definedOnly(input.facts) };
  if (holderRef === input.attemptRef) return { verdict: { kind: "keep" }, holder: null, claimant, facts };
  return { verdict: judgeClaim({ door: input.door, claimant, holder, boundTo, facts }), holder, claimant, facts };
}

const doorOf = (actor: Principal): ClaimDoor =>
  actor.kind === "user" ? "attach" : actor.kind === "provider" ? "reference" : "report";

async function holderOf(tx: Prisma.TransactionClient, provider: string, providerJobId: string) {
  const row = await tx.attempt.findUnique({
    where: { provider_providerJobId: { provider, providerJobId } },
    select: { id: true },
  });
  return row?.id ?? null;
}

async function ownerCase(tx: Prisma.TransactionClient, attemptRef: string): Promise<RefusedOwner> {
  const row = await tx.attempt.findUnique({
    where: { id: attemptRef },
    select: { operation: { select: { producer: true, operationId: true, case: { select: { id: true } } } } },
  });
  const operation = row?.operation;
  return operation?.case
    ? { caseId: operation.case.id, operationId: operation.operationId, producer: operation.producer }
    : null;
}

/** An attempt as evidence is compared with it: its operation's request, and its permit's window. */
export async function attemptFacts(tx: Prisma.TransactionClient, attemptRef: string): Promise<ClaimantFacts> {
  const row = await tx.attempt.findUniqueOrThrow({
    where: { id: attemptRef },
    select: {
      operation: { select: { requestFingerprint: true, model: true } },
      permit: { select: { createdAt: true, sendDeadline: true } },
    },
  });
  return {
    attemptRef,
    fingerprint: row.operation.requestFingerprint,
    model: row.operation.model,
    window: row.permit ? { from: row.permit.createdAt, to: row.permit.sendDeadline } : null,
  };
}

/** The holder's facts, and what has come of its claim that nothing here may undo. */
async function holderFacts(tx: Prisma.TransactionClient, attemptRef: string): Promise<HolderFacts> {
  const [facts, hold, kase] = await Promise.all([
    attemptFacts(tx, attemptRef),
    tx.hold.findUnique({ where: { attemptRef }, select: { status: true } }),
    tx.case.findFirst({ where: { attemptRef }, select: { stage: true, state: true } }),
  ]);
  return { ...facts, committed: committedBy(hold?.status ?? null, kase) };
}

function committedBy(hold: string | null, kase: { stage: string; state: string } | null): string | null {
  if (hold && hold !== "held") return `its hold is ${hold}`;
  if (!kase) return null;
  if (kase.state === "resolved") return "its case is resolved";
  if (kase.state === "claimed") return "a worker holds its case";
  if (kase.stage !== "polling") return `its case is past status checks (${kase.stage})`;
  return null;
}

async function boundAttempt(tx: Prisma.TransactionClient, provider: string, providerJobId: string) {
  const row = await tx.jobReference.findUnique({
    where: { provider_providerJobId: { provider, providerJobId } },
    select: { attemptRef: true },
  });
  return row?.attemptRef ?? null;
}

/** What the provider's verified webhooks said about the job's request, model and creation, first said first. */
async function keptFacts(
  tx: Prisma.TransactionClient,
  provider: string,
  providerJobId: string,
): Promise<ProviderFacts> {
  const rows = await tx.providerWebhook.findMany({
    where: {
      provider,
      providerJobId,
      OR: [{ requestFingerprint: { not: null } }, { model: { not: null } }, { jobCreatedAt: { not: null } }],
    },
    orderBy: { id: "asc" },
    take: 5,
    select: { requestFingerprint: true, model: true, jobCreatedAt: true },
  });
  return {
    fingerprint: rows.find((r) => r.requestFingerprint)?.requestFingerprint ?? null,
    model: rows.find((r) => r.model)?.model ?? null,
    createdAt: rows.find((r) => r.jobCreatedAt)?.jobCreatedAt ?? null,
  };
}

const definedOnly = (facts: ProviderFacts): ProviderFacts =>
  Object.fromEntries(Object.entries(facts).filter(([, value]) => value != null)) as ProviderFacts;

/**
 * The holder's bare claim lost to the provider's evidence before anything came of it: its attempt
 * forgets the job (as decision 011's migration disowned later registrations), its open case goes
 * back to an uncertain submission with pending actions superseded, or its permit is parked as one;
 * its hold stays held (rule 6). Both operations carry the conflict and its evidence.
 */
export async function disownHolder(
  tx: Prisma.TransactionClient,
  actor: Principal,
  input: {
    provider: string;
    providerJobId: string;
    door: ClaimDoor;
    claimant: ClaimantFacts;
    holder: HolderFacts;
    reason: string;
    facts: ProviderFacts;
  },
): Promise<void> {
  const { holder, providerJobId } = input;
  const text = `provider job ${providerJobId} taken from this operation's claim: ${input.reason}`;
  const kase = await tx.case.findFirst({ where: { attemptRef: holder.attemptRef, state: { not: "resolved" } } });
  if (kase) {
    await disownCaseJob(tx, actor, kase, { text, providerJobId });
    await tx.attempt.update({ where: { id: holder.attemptRef }, data: { providerJobId: null } });
  } else {
    await tx.attempt.update({ where: { id: holder.attemptRef }, data: { providerJobId: null } });
    const permit = await tx.sendPermit.findUnique({
      where: { attemptRef: holder.attemptRef },
      include: PERMIT_FOR_PARKING,
    });
    if (permit && !permit.caseRef) {
      await tx.sendPermit.update({ where: { id: permit.id }, data: { providerJobId: null } });
      // The send happened, but which job it created is uncertain again: a reviewer reconciles it.
      await parkPermit(tx, {
        permit: { ...permit, attempt: { ...permit.attempt, providerJobId: null } },
        actor,
        stage: "submission_uncertain",
        providerJobId: null,
        next: "uncertain",
        evidence: { text, providerJobId },
      });
    }
  }
  await recordConflict(tx, actor, {
    provider: input.provider,
    providerJobId,
    door: input.door,
    outcome: "taken_from_holder",
    claimantAttemptRef: input.claimant.attemptRef,
    holderAttemptRef: holder.attemptRef,
    reason: input.reason,
    evidence: { facts: input.facts },
  });
}

/** The park whose named job `parkEvidence` reads the provider's evidence on. */
type ParkClaim = {
  producer: string;
  operationId: string;
  attemptId: string;
  provider: string;
  providerJobId: string;
  fingerprint: string;
  model: string;
};

/** What the provider's evidence says about the job a park names (`parkEvidence`'s columns). */
export type ParkEvidence = { bound_elsewhere: boolean; fingerprint: string | null; model: string | null };

/**
 * Rule 17 at the park door (POST /api/v1/cases with a job ID): the provider's evidence about the
 * named job, as the select list of one row, so the park reads it in the statement that reads its
 * registration (lib/services/case/park-case-first-episode.ts) and `refuseContradictedPark` judges it.
 */
export function parkEvidence(claim: ParkClaim): Prisma.Sql {
  return Prisma.sql`
    SELECT EXISTS (SELECT 1 FROM job_references r JOIN attempts ra ON ra.id = r.attempt_ref
                     JOIN operations ro ON ro.id = ra.operation_ref
                   WHERE r.provider = ${claim.provider} AND r.provider_job_id = ${claim.providerJobId}
                     AND NOT (ro.producer = ${claim.producer} AND ro.operation_id = ${claim.operationId}
                              AND ra.attempt_id = ${claim.attemptId})) AS bound_elsewhere,
           (SELECT w.request_fingerprint FROM provider_webhooks w WHERE w.provider = ${claim.provider}
              AND w.provider_job_id = ${claim.providerJobId} AND w.request_fingerprint IS NOT NULL ORDER BY w.id LIMIT 1) AS fingerprint,
           (SELECT w.model FROM provider_webhooks w WHERE w.provider = ${claim.provider}
              AND w.provider_job_id = ${claim.providerJobId} AND w.model IS NOT NULL ORDER BY w.id LIMIT 1) AS model`;
}

/**
 * Before the one-statement registration: a job the provider's evidence shows is not this
 * operation's (its signed reference is fixed to another attempt, or its signed copy of the request
 * or model is not this one's) is refused. A park has no reference and no permit window, so it never
 * takes a job from another claim; a job already recorded for this very attempt (a replay) is not
 * examined, and `evidence` is null then: the registration's own idempotence answers it.
 */
export function refuseContradictedPark(
  evidence: ParkEvidence | null,
  claim: Pick<ParkClaim, "fingerprint" | "model">,
): void {
  if (!evidence) return;
  const claimant = { attemptRef: "", fingerprint: claim.fingerprint, model: claim.model, window: null };
  const reason = evidence.bound_elsewhere
    ? "the provider's signed reference ties the job to another operation's send"
    : refutedBy({ fingerprint: evidence.fingerprint, model: evidence.model }, claimant);
  if (reason) throw new AppError("provider_job_in_use", `The provider's evidence refuses this claim: ${reason}.`);
}
