import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import { requirePermission } from "./actor";

const TIMELINE_LIMIT = 500;

export type CaseDetail = Awaited<ReturnType<typeof getCase>>;

/** The case with its hold and ledger, lineage (every attempt and its cost) and timeline, newest first. */
export async function getCase(db: Db, actor: Principal, caseId: string) {
  requirePermission(actor, "case:read");
  const row = await db.case.findUnique({
    where: { id: caseId },
    include: {
      operation: {
        include: { attempts: { include: { hold: { include: { entries: true } } }, orderBy: { createdAt: "asc" } } },
      },
      assignee: { select: { id: true, email: true, name: true } },
      actions: { orderBy: { createdAt: "desc" }, take: 20 },
      replacementRequests: { orderBy: { createdAt: "desc" } },
    },
  });
  if (!row) throw new AppError("not_found", "No such case.");
  const timeline = await db.auditEvent.findMany({
    where: { caseId },
    orderBy: { id: "desc" },
    take: TIMELINE_LIMIT,
  });
  // Jobs an automated search found for this episode's uncertain submission; a reviewer confirms one.
  const suggestions = await db.reconciliationSuggestion.findMany({
    where: { caseId, episode: row.episode },
    orderBy: [{ confidence: "desc" }, { jobCreatedAt: "asc" }],
    take: 20,
  });
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
    requestFingerprint: row.operation.requestFingerprint,
    requestSummary: row.operation.requestSummary,
    evidence: row.lastEvidence,
    counters: { pollAttempts: row.pollAttempts, deliveryAttempts: row.deliveryAttempts },
    submittedAt: row.submittedAt?.toISOString() ?? null,
    retryDeadline: row.retryDeadline?.toISOString() ?? null,
    openedAt: row.openedAt.toISOString(),
    resolvedAt: row.resolvedAt?.toISOString() ?? null,
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
    lineageTotalMicros: lineage.reduce((sum, a) => sum + (a.hold?.amountMicros ?? 0), 0),
    replacementRequests: row.replacementRequests.map((r) => ({
      id: r.id,
      status: r.status,
      amountMicros: Number(r.amountMicros),
      currency: r.currency,
      requestedById: r.requestedById,
      expiresAt: r.expiresAt.toISOString(),
      evidence: r.evidence,
    })),
    suggestions: suggestions.map((s) => ({
      id: s.id,
      providerJobId: s.providerJobId,
      confidence: s.confidence,
      matched: Array.isArray(s.matched) ? s.matched.filter((m): m is string => typeof m === "string") : [],
      providerStatus: s.providerStatus,
      jobCreatedAt: s.jobCreatedAt.toISOString(),
      status: s.status,
    })),
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
