import type { Db } from "@/lib/db/client";
import { lastAttempt, waitingOn } from "@/lib/domain/case-progress";
import { futileRepeat } from "@/lib/domain/futile-repeat";
import { lineageCost } from "@/lib/domain/lineage-cost";
import { costOfGeneration } from "@/lib/domain/money";
import type { Principal } from "@/lib/domain/principal";
import { can } from "@/lib/domain/roles";
import type { Env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { providerCapabilityView } from "@/lib/providers/capabilities";
import { providerJobPage } from "@/lib/providers/job-page";
import { requireCaseInScope, requirePermission } from "../access/actor";
import { givenUpNotifications } from "../notification/producer-not-told";
import { vaultTimes } from "../vault/vaulted-outputs";
import { mayNameOwner, ownersOfJobs } from "./job-owner";
import { lastAttemptFindings } from "./last-attempt-findings";
import { narrowEventsOfCase } from "./named-cases";
import { noJobAllowedFrom } from "./no-job-from";

const TIMELINE_LIMIT = 500;

/**
 * What one more generation of this model would cost, from the admin's price table: per generation,
 * or per second times the requested duration when the request says one (else unknown).
 */
function duplicateCostOf(
  price: { unit: "per_generation" | "per_second"; priceMicros: bigint; currency: string } | null,
  request: unknown,
): { micros: number; currency: string; basis: string } | null {
  if (!price) return null;
  const micros = Number(price.priceMicros);
  if (price.unit === "per_generation") return { micros, currency: price.currency, basis: "per generation" };
  const fields = (request ?? {}) as Record<string, unknown>;
  const seconds = [fields.duration_seconds, fields.duration, fields.seconds].find((v) => Number.isSafeInteger(v));
  if (typeof seconds !== "number" || seconds <= 0) return null;
  const cost = costOfGeneration({ unit: "second", priceMicrosPerSecond: micros }, seconds);
  return { micros: cost, currency: price.currency, basis: `${seconds} s at the per-second price` };
}

export type CaseDetail = Awaited<ReturnType<typeof getCase>>;

/** The case with its hold and ledger, lineage (every attempt and its cost per currency) and timeline, newest first. */
export async function getCase(db: Db, actor: Principal, caseId: string, settings: Pick<Env, "providerMode">) {
  const user = requirePermission(actor, "case:read");
  const row = await db.case.findUnique({
    where: { id: caseId },
    include: {
      operation: {
        include: { attempts: { include: { hold: { include: { entries: true } } }, orderBy: { createdAt: "asc" } } },
      },
      assignee: { select: { id: true, email: true, name: true } },
      actions: { orderBy: { createdAt: "desc" }, take: 20, include: { decision: { select: { episode: true } } } },
      replacementRequests: { orderBy: { createdAt: "desc" } },
    },
  });
  if (!row) throw new AppError("not_found", "No such case.");
  requireCaseInScope(actor, row.producer);
  // Jobs an automated search found for this episode's uncertain submission; a reviewer confirms one.
  const [events, suggestions, observations, assets, price, notTold, findings, noJobFrom] = await Promise.all([
    db.auditEvent.findMany({ where: { caseId }, orderBy: { id: "desc" }, take: TIMELINE_LIMIT }),
    db.reconciliationSuggestion.findMany({
      where: { caseId, episode: row.episode },
      orderBy: [{ confidence: "desc" }, { jobCreatedAt: "asc" }],
      take: 20,
    }),
    db.providerObservation.findMany({ where: { caseId }, orderBy: { id: "desc" }, take: 50 }),
    db.asset.findMany({ where: { caseId, publishedAt: { not: null } }, orderBy: { outputIndex: "asc" } }),
    db.providerPrice.findUnique({ where: { provider_model: { provider: row.provider, model: row.model } } }),
    givenUpNotifications(db, caseId),
    lastAttemptFindings(db, [caseId]),
    row.stage === "submission_uncertain" || row.stage === "polling" ? noJobAllowedFrom(db, row) : null,
  ]);
  // Which delivered copies came from the product's own vault copy, and when it kept it (decision 075).
  const kept = await vaultTimes(db, [...new Set(assets.map((a) => a.attemptRef))]);
  // What the decisions read about the last attempt, exactly as the services read it (decision 068).
  const repeat = futileRepeat(row.stage, findings.get(caseId) ?? null);
  // A suggestion from before its job was recorded elsewhere must say whose the job is now; the
  // timeline names no other producer's case or job (decision 055).
  const [owners, timeline] = await Promise.all([
    ownersOfJobs(
      db,
      row.provider,
      suggestions.map((s) => s.providerJobId),
    ),
    narrowEventsOfCase(db, row, events),
  ]);
  const lineage = row.operation.attempts.map((attempt) => ({
    attemptId: attempt.attemptId,
    kind: attempt.kind,
    replacesAttemptId: row.operation.attempts.find((a) => a.id === attempt.replacesAttemptId)?.attemptId ?? null,
    providerJobId: attempt.providerJobId,
    hold: attempt.hold
      ? {
          id: attempt.hold.id,
          holdId: attempt.hold.holdId,
          amountMicros: Number(attempt.hold.amountMicros),
          currency: attempt.hold.currency,
          status: attempt.hold.status,
          settledMicros: Number(attempt.hold.settledMicros),
          releasedMicros: Number(attempt.hold.releasedMicros),
          decisionNote: attempt.hold.decisionNote,
          entries: attempt.hold.entries.map((e) => ({
            kind: e.kind,
            amountMicros: Number(e.amountMicros),
            flagged: e.flagged,
            note: e.note,
            actor: e.actorLabel,
            at: e.createdAt.toISOString(),
          })),
        }
      : null,
  }));
  const live = row.actions.find((a) => a.status === "ready" || a.status === "claimed") ?? null;
  const holdOpen = row.state === "resolved" && row.heldMicros > 0n;
  const attemptIds = new Map(row.operation.attempts.map((a) => [a.id, a.attemptId]));
  const episodeActions = row.actions
    .filter((a) => a.decision.episode === row.episode)
    .map((a) => ({ id: a.id, kind: a.kind, status: a.status, outcome: a.outcome, finishedAt: iso(a.finishedAt) }));
  const progress = {
    // The worker's own words for its last finish are on the event it wrote (evidence names the action).
    lastAttempt: lastAttempt(
      episodeActions,
      timeline.find((e) => actionOf(e.evidence) !== null)?.evidence ?? null,
      observations.map((o) => ({ actionId: o.actionId, kind: o.kind })),
    ),
    waitingOn: waitingOn(
      {
        stage: row.stage,
        state: row.state,
        outputsUnavailable: row.outputsUnavailableAt !== null,
        jobUnknown: repeat?.reason === "job_unknown",
        holdOpen,
        pendingReplacement: row.replacementRequests.some((r) => r.status === "pending"),
        replacementToSubmit: row.replacementRequests.some((r) => r.status === "authorized" && !r.acknowledgedAt),
        readyAt: live?.status === "ready" ? iso(live.readyAt) : null,
        leaseUntil: live?.status === "claimed" ? iso(live.leaseUntil) : null,
      },
      Date.now(),
    ),
  };
  return {
    id: row.id,
    operationId: row.operationId,
    attemptId: row.attemptId,
    producer: row.producer,
    provider: row.provider,
    model: row.model,
    stage: row.stage,
    state: row.state,
    version: row.version,
    episode: row.episode,
    outcome: row.outcome,
    providerJobId: row.providerJobId,
    providerCapabilities: providerCapabilityView(row.provider),
    providerJobPage: row.providerJobId
      ? providerJobPage({ provider: row.provider, providerJobId: row.providerJobId, mode: settings.providerMode })
      : null,
    requestFingerprint: row.operation.requestFingerprint,
    requestSummary: row.operation.requestSummary,
    evidence: row.lastEvidence,
    counters: { pollAttempts: row.pollAttempts, deliveryAttempts: row.deliveryAttempts },
    submittedAt: row.submittedAt?.toISOString() ?? null,
    retryDeadline: row.retryDeadline?.toISOString() ?? null,
    escalation: row.escalatedAt ? { at: row.escalatedAt.toISOString(), reason: row.escalationReason } : null,
    holdOpen,
    /** Messages to the producer that were given up: the case is flagged "producer not told" (decision 045). */
    producerNotTold: notTold,
    /** DESIGN rule 18: a hold of this case was charged after its release and finance has not decided it. */
    chargedAfterRelease: row.operation.attempts.some((a) => a.hold?.lateChargedAt && !a.hold.lateChargeDecidedAt),
    progress,
    openedAt: row.openedAt.toISOString(),
    resolvedAt: row.resolvedAt?.toISOString() ?? null,
    /** When retention replaced its customer text with markers and deleted its videos (decision 033). */
    redactedAt: row.redactedAt?.toISOString() ?? null,
    // The fact the decisions depend on (a snapshot field), and when it was learnt / when outputs expire.
    ...(row.outputsUnavailableAt ? { outputsUnavailable: true as const } : {}),
    ...(repeat?.reason === "job_unknown" ? { jobUnknown: true as const } : {}),
    /** Whether the last attempt still bears on the decisions: no job was attached since it (decision 068). */
    lastAttemptApplies: findings.has(caseId),
    /** Why repeating the stage's recovery cannot help now, when it cannot (decision 061). */
    repeatCannotHelp: repeat?.message ?? null,
    /** From when "no job exists" may be recorded (DESIGN section 7), for the stages that may record it. */
    noJobFrom: noJobFrom?.toISOString() ?? null,
    outputsUnavailableAt: row.outputsUnavailableAt?.toISOString() ?? null,
    outputsExpireAt: row.outputsExpireAt?.toISOString() ?? null,
    heldMicros: Number(row.heldMicros),
    currency: row.currency,
    assignee: row.assignee,
    liveAction: live
      ? {
          id: live.id,
          kind: live.kind,
          status: live.status,
          leaseOwner: live.leaseOwner,
          leaseUntil: live.leaseUntil?.toISOString() ?? null,
          fencingToken: Number(live.fencingToken),
        }
      : null,
    lineage,
    /** Per currency, never summed across currencies: reserved, charged and still held. */
    lineageCost: lineageCost(lineage.flatMap((a) => (a.hold ? [a.hold] : []))),
    replacementRequests: row.replacementRequests.map((r) => ({
      id: r.id,
      status: r.status,
      amountMicros: Number(r.amountMicros),
      currency: r.currency,
      requestedById: r.requestedById,
      expiresAt: r.expiresAt.toISOString(),
      evidence: r.evidence,
    })),
    duplicateCost: duplicateCostOf(price, row.operation.requestSummary),
    observations: observations.map((o) => ({
      id: o.id.toString(),
      at: o.observedAt.toISOString(),
      kind: o.kind,
      providerStatus: o.providerStatus,
      outputs: o.outputs,
      fencingToken: o.fencingToken === null ? null : Number(o.fencingToken),
    })),
    // Every published copy of the case stays listed and served, an earlier attempt's too (decision
    // 071): it is what the provider delivered and what was paid for. Each names its attempt, the
    // current attempt's first.
    assets: [...assets]
      .sort((a, b) => Number(b.attemptRef === row.attemptRef) - Number(a.attemptRef === row.attemptRef))
      .map((a) => ({
        outputIndex: a.outputIndex,
        attemptId: attemptIds.get(a.attemptRef) ?? null,
        current: a.attemptRef === row.attemptRef,
        /** Where the stored copy plays, for a person allowed to see the producer's videos (decision 067). */
        href:
          can(user.roles, "case:view_outputs") && a.deletedAt === null
            ? `/api/v1/cases/${caseId}/outputs/${a.id}`
            : null,
        deleted: a.deletedAt !== null,
        storageKey: a.storageKey,
        sha256: a.sha256,
        sizeBytes: Number(a.sizeBytes),
        fencingToken: Number(a.fencingToken),
        publishedAt: a.publishedAt?.toISOString() ?? null,
        /** When the product copied this output before the provider deleted it (decision 075), if it did. */
        keptByProductAt: kept.get(`${a.attemptRef}:${a.outputIndex}`)?.toISOString() ?? null,
      })),
    suggestions: suggestions.map((s) => {
      const owner = owners.get(s.providerJobId) ?? null;
      const named = owner === null || mayNameOwner(user, owner);
      return {
        id: s.id,
        /** A job since recorded for another producer's operation is theirs: its ID is not shown (decision 055). */
        providerJobId: named ? s.providerJobId : null,
        confidence: s.confidence,
        matched: Array.isArray(s.matched) ? s.matched.filter((m): m is string => typeof m === "string") : [],
        providerStatus: s.providerStatus,
        jobCreatedAt: s.jobCreatedAt.toISOString(),
        status: s.status,
        /** Whether another operation records this job; its case is named only to those who may see it. */
        ownedElsewhere: owner !== null,
        ownerCaseId: mayNameOwner(user, owner) ? owner.caseId : null,
        ownerOperationId: mayNameOwner(user, owner) ? owner.operationId : null,
      };
    }),
    timeline: timeline.map((e) => ({
      id: e.id.toString(),
      at: e.createdAt.toISOString(),
      actor: e.actorLabel,
      actorKind: e.actorKind,
      kind: e.kind,
      episode: e.episode,
      before: e.before,
      after: e.after,
      evidence: e.evidence,
    })),
  };
}

const iso = (at: Date | null | undefined) => at?.toISOString() ?? null;
const actionOf = (evidence: unknown) => {
  const id = (evidence as { actionId?: unknown } | null)?.actionId;
  return typeof id === "string" ? id : null;
};
