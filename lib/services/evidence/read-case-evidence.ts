import type { Db } from "@/lib/db/client";
import type { CaseEvidence, Json, Money, TimelineEvent } from "@/lib/evidence/packet";

/** A case's audit chain beyond this many events keeps its newest (the packet says it is incomplete). */
export const TIMELINE_CAP = 2_000;

const iso = (at: Date | null | undefined) => at?.toISOString() ?? null;
const hex = (bytes: Uint8Array | null) => (bytes === null ? null : Buffer.from(bytes).toString("hex"));
const money = (micros: bigint, currency: string): Money => ({ micros: micros.toString(), currency });
const json = (value: unknown): Json => (value ?? null) as Json;
/** Audit times are stored to the millisecond (timestamptz(3)); the chain hashes them in microseconds. */
const micros = (at: Date) => (BigInt(at.getTime()) * 1000n).toString();

/**
 * Everything a packet says about these cases, read in one pass per table (a filter's packet is up to
 * its cap of cases, not one round trip per case per table). Each audit timeline is read up to the
 * chain head read first: events are append-only, so every event up to that head is there, and the
 * timeline and its head agree however busy the case is.
 */
export async function readCaseEvidence(db: Db, caseIds: string[]): Promise<CaseEvidence[]> {
  if (caseIds.length === 0) return [];
  const inCases = { in: caseIds };
  const heads = await db.auditChainHead.findMany({ where: { chainKey: inCases } });
  const headOf = new Map(heads.map((head) => [head.chainKey, head]));
  const [cases, decisions, actions, observations, requests, assets, events] = await Promise.all([
    db.case.findMany({
      where: { id: inCases },
      include: {
        operation: {
          include: {
            attempts: {
              include: { hold: { include: { entries: true } } },
              orderBy: [{ createdAt: "asc" }, { id: "asc" }],
            },
          },
        },
      },
    }),
    db.decision.findMany({
      where: { caseId: inCases },
      include: { reviewer: { select: { email: true } } },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    }),
    db.recoveryAction.findMany({
      where: { caseId: inCases },
      include: { decision: { select: { episode: true } } },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    }),
    db.providerObservation.findMany({ where: { caseId: inCases }, orderBy: { id: "asc" } }),
    db.replacementRequest.findMany({ where: { caseId: inCases }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }),
    db.asset.findMany({
      where: { caseId: inCases, publishedAt: { not: null } },
      orderBy: [{ outputIndex: "asc" }, { createdAt: "asc" }],
    }),
    heads.length === 0
      ? Promise.resolve([])
      : db.auditEvent.findMany({
          where: {
            OR: heads.map((head) => ({
              caseId: head.chainKey,
              chainSeq: { gt: Math.max(0, head.seq - TIMELINE_CAP), lte: head.seq },
            })),
          },
          orderBy: [{ caseId: "asc" }, { chainSeq: "asc" }],
        }),
  ]);
  const byCase = <T extends { caseId: string | null }>(rows: T[]) => {
    const grouped = new Map<string, T[]>();
    for (const row of rows) if (row.caseId) grouped.set(row.caseId, [...(grouped.get(row.caseId) ?? []), row]);
    return (caseId: string) => grouped.get(caseId) ?? [];
  };
  const decisionsOf = byCase(decisions);
  const actionsOf = byCase(actions);
  const observationsOf = byCase(observations);
  const requestsOf = byCase(requests);
  const assetsOf = byCase(assets);
  const eventsOf = byCase(events);
  const order = new Map(caseIds.map((id, index) => [id, index]));
  cases.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));

  return cases.map((row): CaseEvidence => {
    const attempts = row.operation.attempts;
    const attemptIdOf = (ref: string | null) => attempts.find((a) => a.id === ref)?.attemptId ?? null;
    const holds = attempts.flatMap((attempt) => (attempt.hold ? [{ attempt, hold: attempt.hold }] : []));
    const head = headOf.get(row.id);
    const timeline = eventsOf(row.id).map(timelineEvent);
    return {
      case: {
        id: row.id,
        producer: row.producer,
        operationId: row.operationId,
        attemptId: row.attemptId,
        provider: row.provider,
        model: row.model,
        stage: row.stage,
        state: row.state,
        episode: row.episode,
        version: row.version,
        outcome: row.outcome,
        providerJobId: row.providerJobId,
        requestFingerprint: row.operation.requestFingerprint,
        requestSummary: json(row.operation.requestSummary),
        lastEvidence: json(row.lastEvidence),
        held: money(row.heldMicros, row.currency),
        openedAt: row.openedAt.toISOString(),
        resolvedAt: iso(row.resolvedAt),
        submittedAt: iso(row.submittedAt),
        escalation: row.escalatedAt ? { at: row.escalatedAt.toISOString(), reason: row.escalationReason } : null,
        outputsUnavailableAt: iso(row.outputsUnavailableAt),
        redactedAt: iso(row.redactedAt),
      },
      attempts: attempts.map((a) => ({
        attemptId: a.attemptId,
        kind: a.kind,
        replacesAttemptId: attemptIdOf(a.replacesAttemptId),
        providerJobId: a.providerJobId,
        submittedAt: iso(a.submittedAt),
        createdAt: a.createdAt.toISOString(),
      })),
      decisions: decisionsOf(row.id).map((d) => ({
        id: d.id,
        episode: d.episode,
        kind: d.kind,
        actionKind: d.actionKind,
        reviewerId: d.reviewerId,
        reviewer: d.reviewer.email,
        evidence: d.evidence,
        at: d.createdAt.toISOString(),
      })),
      recoveryActions: actionsOf(row.id).map((a) => ({
        id: a.id,
        decisionId: a.decisionId,
        episode: a.decision.episode,
        kind: a.kind,
        status: a.status,
        outcome: a.outcome,
        fencingToken: a.fencingToken.toString(),
        claimCount: a.claimCount,
        failures: json(a.failures),
        readyAt: a.readyAt.toISOString(),
        createdAt: a.createdAt.toISOString(),
        finishedAt: iso(a.finishedAt),
      })),
      observations: observationsOf(row.id).map((o) => ({
        id: o.id.toString(),
        attemptId: attemptIdOf(o.attemptRef),
        actionId: o.actionId,
        fencingToken: o.fencingToken === null ? null : o.fencingToken.toString(),
        kind: o.kind,
        providerStatus: o.providerStatus,
        outputs: json(o.outputs),
        detail: json(o.detail),
        at: o.observedAt.toISOString(),
      })),
      holds: holds.map(({ attempt, hold }) => ({
        id: hold.id,
        holdId: hold.holdId,
        producer: hold.producer,
        attemptId: attempt.attemptId,
        status: hold.status,
        amount: money(hold.amountMicros, hold.currency),
        settled: money(hold.settledMicros, hold.currency),
        released: money(hold.releasedMicros, hold.currency),
        decidedById: hold.decidedById,
        decisionNote: hold.decisionNote,
        createdAt: hold.createdAt.toISOString(),
        resolvedAt: iso(hold.resolvedAt),
      })),
      ledger: holds
        .flatMap(({ hold }) => hold.entries.map((entry) => ({ entry, hold })))
        .sort(
          (a, b) => a.entry.createdAt.getTime() - b.entry.createdAt.getTime() || a.entry.id.localeCompare(b.entry.id),
        )
        .map(({ entry, hold }) => ({
          id: entry.id,
          holdId: hold.holdId,
          kind: entry.kind,
          amount: money(entry.amountMicros, hold.currency),
          flagged: entry.flagged,
          note: entry.note,
          actor: entry.actorLabel,
          at: entry.createdAt.toISOString(),
        })),
      replacementRequests: requestsOf(row.id).map((r) => ({
        id: r.id,
        status: r.status,
        amount: money(r.amountMicros, r.currency),
        requestedById: r.requestedById,
        decidedById: r.decidedById,
        evidence: r.evidence,
        createdAt: r.createdAt.toISOString(),
        decidedAt: iso(r.decidedAt),
        closedReason: r.closedReason,
      })),
      assets: assetsOf(row.id).map((a) => ({
        outputIndex: a.outputIndex,
        storageKey: a.storageKey,
        sha256: a.sha256,
        sizeBytes: a.sizeBytes === null ? null : a.sizeBytes.toString(),
        contentType: a.contentType,
        fencingToken: a.fencingToken.toString(),
        publishedAt: iso(a.publishedAt),
        deletedAt: iso(a.deletedAt),
      })),
      timeline: {
        events: timeline,
        complete: (timeline[0]?.seq ?? 1) === 1,
        head: head ? { seq: head.seq, hash: hex(head.hash) ?? "" } : null,
      },
    };
  });
}

type AuditRow = Awaited<ReturnType<Db["auditEvent"]["findMany"]>>[number];

function timelineEvent(e: AuditRow): TimelineEvent {
  return {
    id: e.id.toString(),
    seq: e.chainSeq,
    prevHash: hex(e.prevHash) ?? "",
    hash: hex(e.hash) ?? "",
    episode: e.episode,
    actorKind: e.actorKind,
    actorId: e.actorId,
    actorLabel: e.actorLabel,
    actorLabelSha256: hex(e.actorLabelDigest) ?? "",
    kind: e.kind,
    before: json(e.before),
    after: json(e.after),
    evidence: json(e.evidence),
    beforeSha256: hex(e.beforeDigest),
    afterSha256: hex(e.afterDigest),
    evidenceSha256: hex(e.evidenceDigest),
    at: e.createdAt.toISOString(),
    atMicros: micros(e.createdAt),
  };
}
