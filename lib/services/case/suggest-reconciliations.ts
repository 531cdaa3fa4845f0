import { recordAudit } from "@/lib/audit/writer";
import type { Db, Prisma } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { ANOTHER_PRODUCERS_OPERATION } from "@/lib/domain/named-cases";
import type { Principal } from "@/lib/domain/principal";
import { type ScoredJob, type SuggestionTarget, scoreListedJob } from "@/lib/domain/reconciliation-score";
import type { ConfiguredAdapters, ListedJob, ProviderAdapter } from "@/lib/providers";
import { requireWorker } from "../access/actor";
import { type Candidate, type Lookup, lookUp } from "./provider-lookup";

/** Half-width of the searched window around the submission time (DESIGN section 7). */
export const SUGGESTION_WINDOW_MS = 10 * 60_000;
/** An inconclusive search is repeated after this long ... */
export const RESEARCH_AFTER_MS = 10 * 60_000;
/** ... at most this many times per episode, so a provider that never answers is not asked forever. */
export const MAX_SEARCHES_PER_EPISODE = 6;
/** Only the best few candidates of one search are kept. */
export const MAX_SUGGESTIONS_PER_SEARCH = 10;

export const SUGGESTION_AUDIT_KIND = "reconciliation_suggested";

type DueCase = { id: string };

/**
 * Cases worth a search now: open uncertain submissions (parked) with no search in this episode yet,
 * or whose searches so far were all inconclusive (listing failed or stopped early, or ran before the
 * window had closed) and the last one is older than RESEARCH_AFTER_MS, up to MAX_SEARCHES_PER_EPISODE.
 * A conclusive search is not repeated: the window it covered is over and was seen in full.
 */
async function dueCases(db: Db, now: Date, max: number): Promise<DueCase[]> {
  const cutoff = new Date(now.getTime() - RESEARCH_AFTER_MS).toISOString();
  return db.$queryRaw<DueCase[]>`
    SELECT c.id::text AS id
    FROM cases c
    CROSS JOIN LATERAL (
      SELECT max(a.created_at) AS last_at,
             count(*)::int AS searches,
             coalesce(bool_or(a.evidence -> 'conclusive' = 'true'::jsonb), false) AS concluded
      FROM audit_events a
      WHERE a.case_id = c.id AND a.episode = c.episode AND a.kind = ${SUGGESTION_AUDIT_KIND}
    ) s
    WHERE c.stage = 'submission_uncertain' AND c.state = 'parked'
      AND (s.searches = 0
        OR (NOT s.concluded AND s.searches < ${MAX_SEARCHES_PER_EPISODE} AND s.last_at < ${cutoff}::timestamptz))
    ORDER BY s.last_at ASC NULLS FIRST, c.opened_at ASC, c.id ASC
    LIMIT ${max}`;
}

export type SuggestResult = { searched: number; suggested: number };

/**
 * Searches the provider around an uncertain submission's time and stores the jobs that look like it
 * as suggestions, with the attributes that matched and a confidence. It never attaches a job and
 * never changes a case: a reviewer confirms a suggestion (or none) on the case page. The provider's
 * copy of the request is only fingerprinted here; it is never stored, not even in the audit.
 */
export async function suggestReconciliations(
  ctx: { db: Db; adapters: ConfiguredAdapters },
  actor: Principal,
  options: { max?: number; now?: Date; signal?: AbortSignal } = {},
): Promise<SuggestResult> {
  const worker = requireWorker(actor);
  const now = options.now ?? new Date();
  const due = await dueCases(ctx.db, now, options.max ?? 5);
  const result: SuggestResult = { searched: 0, suggested: 0 };
  for (const { id } of due) {
    if (options.signal?.aborted) break;
    let stored: number | null;
    try {
      stored = await searchOne(ctx, worker, id, now, options.signal);
    } catch (error) {
      // Recorded as an inconclusive search, so one failing case cannot hold the front of the queue.
      await recordFailedSearch(ctx.db, worker, id, error);
      continue;
    }
    if (stored === null) continue;
    result.searched += 1;
    result.suggested += stored;
  }
  return result;
}

async function recordFailedSearch(db: Db, actor: Principal, caseId: string, error: unknown): Promise<void> {
  const row = await db.case.findUnique({ where: { id: caseId }, select: { episode: true } });
  if (!row) return;
  const reason = error instanceof Error ? error.message.slice(0, 300) : String(error).slice(0, 300);
  await recordAudit(db, {
    actor,
    kind: SUGGESTION_AUDIT_KIND,
    caseId,
    episode: row.episode,
    evidence: { count: 0, conclusive: false, note: `the search failed: ${reason}` },
  });
}

/** Returns how many suggestions were stored, or null when nothing was recorded (case moved on, or cut short). */
async function searchOne(
  ctx: { db: Db; adapters: ConfiguredAdapters },
  actor: Principal,
  caseId: string,
  now: Date,
  signal: AbortSignal | undefined,
): Promise<number | null> {
  const row = await ctx.db.case.findUnique({
    where: { id: caseId },
    include: { operation: { select: { requestFingerprint: true } } },
  });
  if (row?.stage !== "submission_uncertain" || row.state !== "parked") return null;
  const reference = row.submittedAt ?? row.openedAt;
  const window = {
    from: new Date(reference.getTime() - SUGGESTION_WINDOW_MS),
    to: new Date(reference.getTime() + SUGGESTION_WINDOW_MS),
    model: row.model,
    clientReference: row.attemptId,
  };
  const adapter = (ctx.adapters as Partial<Record<string, ProviderAdapter>>)[row.provider];
  const supported =
    adapter !== undefined &&
    ((adapter.capabilities.listJobs && adapter.listJobs !== undefined) ||
      (adapter.capabilities.findByClientReference && adapter.findByClientReference !== undefined));

  let lookups: Lookup[] = [];
  let candidates = new Map<string, Candidate>();
  if (adapter && supported) {
    ({ lookups, candidates } = await lookUp(adapter, window, signal));
    // Cut short by the tick's deadline: record nothing, so the next tick searches again.
    if (signal?.aborted) return null;
  }

  const target: SuggestionTarget = {
    model: row.model,
    fingerprint: row.operation.requestFingerprint,
    submittedAt: row.submittedAt,
  };
  // A job already recorded on an attempt belongs to that submission; offering it here could pay twice.
  // It is never offered, and the search's evidence says whose it is.
  const ids = [...candidates.keys()];
  const owned =
    ids.length === 0
      ? []
      : await ctx.db.attempt.findMany({
          where: { provider: row.provider, providerJobId: { in: ids } },
          select: { providerJobId: true, operation: { select: { producer: true, case: { select: { id: true } } } } },
        });
  const known = new Set(owned.map((attempt) => attempt.providerJobId));
  const scored = [...candidates.values()]
    .filter(({ job }) => !known.has(job.providerJobId))
    .map(({ job, viaReference }) => ({ job, score: scoreListedJob(job, target, viaReference) }))
    .filter((entry): entry is { job: ListedJob; score: ScoredJob } => entry.score !== null)
    .sort(
      (a, b) =>
        b.score.confidence - a.score.confidence ||
        Math.abs(Date.parse(a.job.createdAt) - reference.getTime()) -
          Math.abs(Date.parse(b.job.createdAt) - reference.getTime()),
    )
    .slice(0, MAX_SUGGESTIONS_PER_SEARCH);

  const conclusive = !supported || (lookups.every((l) => l.outcome === "ok") && now.getTime() >= window.to.getTime());
  const note = !supported
    ? `the ${row.provider} adapter can neither look up by client reference nor list jobs`
    : lookups.some((l) => l.outcome !== "ok")
      ? "the provider's answer was incomplete or unknown: absence proves nothing and nothing was suggested"
      : undefined;
  const evidence: Prisma.InputJsonValue = {
    count: scored.length,
    window: {
      from: window.from.toISOString(),
      to: window.to.toISOString(),
      around: row.submittedAt ? "submitted_at" : "opened_at",
    },
    lookups,
    ...(note ? { note } : {}),
    alreadyAttributed: ids.filter((id) => known.has(id)).length,
    // This case's evidence names its own producer's operations only; another producer's job and case
    // are theirs, and whoever reads this case may not see them (decision 055).
    attributedTo: owned.map((a) =>
      a.operation.producer === row.producer
        ? { providerJobId: a.providerJobId, caseId: a.operation.case?.id ?? null }
        : { owner: ANOTHER_PRODUCERS_OPERATION },
    ),
    suggestions: scored.map(({ job, score }) => ({ providerJobId: job.providerJobId, confidence: score.confidence })),
    conclusive,
  };

  return inTransaction(ctx.db, async (tx) => {
    // The case may have been reconciled while the provider was asked; then there is nothing to suggest.
    const current = await tx.case.findUnique({
      where: { id: caseId },
      select: { stage: true, state: true, episode: true },
    });
    if (current?.stage !== "submission_uncertain" || current.state !== "parked" || current.episode !== row.episode) {
      return null;
    }
    for (const { job, score } of scored) {
      const created = Date.parse(job.createdAt);
      await tx.$executeRaw`
        INSERT INTO reconciliation_suggestions
          (case_id, episode, provider_job_id, confidence, matched, provider_status, job_created_at)
        VALUES (${caseId}::uuid, ${row.episode}, ${job.providerJobId}, ${score.confidence},
                ${JSON.stringify(score.matched)}::jsonb, ${job.providerStatus},
                ${new Date(Number.isNaN(created) ? reference.getTime() : created).toISOString()}::timestamptz)
        ON CONFLICT (case_id, episode, provider_job_id) DO UPDATE
          SET confidence = EXCLUDED.confidence, matched = EXCLUDED.matched,
              provider_status = EXCLUDED.provider_status, job_created_at = EXCLUDED.job_created_at
          WHERE reconciliation_suggestions.status = 'open'`;
    }
    await recordAudit(tx, { actor, kind: SUGGESTION_AUDIT_KIND, caseId, episode: row.episode, evidence });
    return scored.length;
  });
}
