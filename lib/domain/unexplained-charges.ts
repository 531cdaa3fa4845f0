import { type MatchedAttribute, type ScoredJob, scoreListedJob } from "./reconciliation-score";

// Charges no operation explains (decision 074): jobs the provider's own list shows, or its usage
// lines name, that no attempt owns. Pure: what the daily sweep looks at, how candidate operations
// rank against such a job (the reconciliation score, DESIGN section 7), and what finance may write.

/** The sweep runs once a day across every worker. */
export const JOB_SWEEP_INTERVAL_MS = 24 * 60 * 60_000;
/** A sweep cut short by a tick's deadline is taken again this much later. */
export const JOB_SWEEP_RETRY_MS = 60 * 60_000;
/** It reads a little more than a day back, so a run that starts late misses no job. */
export const JOB_SWEEP_LOOKBACK_MS = 26 * 60 * 60_000;
/** Pages of a provider's list one sweep reads per model: a bound on provider calls, not a promise of completeness. */
export const JOB_SWEEP_MAX_PAGES = 20;
/** Operations offered for one charge: the best few. */
export const MAX_CANDIDATES = 3;
/** Attempts looked at for one charge: job-less sends this close to the job's time. */
export const CANDIDATE_WINDOW_MS = 24 * 60 * 60_000;

/** Why finance says a charge was made outside the product: a sentence, kept with the charge and its audit row. */
export const MIN_REASON_CHARS = 5;

/** What is known of an unexplained job: from the provider's list, or only from its usage lines. */
export type ChargeFacts = { model: string | null; at: Date; fingerprint: string | null };

/**
 * An attempt that never learned its job and could have created this one: the uncertain submission
 * of a parked case, or an earlier send of an operation whose case went on without it (a "no job
 * exists" verdict the provider's list later contradicted, a replacement whose answer was lost).
 */
export type CandidateOperation = {
  caseId: string;
  /** The producer's own ID of the attempt (the job is recorded on it). */
  attemptId: string;
  /** Where the case is now: attaching to anything but its parked uncertain submission leaves it there. */
  stage: string;
  state: string;
  /** The attempt is the case's current one and the case is parked as an uncertain submission. */
  uncertain: boolean;
  operationId: string;
  producer: string;
  model: string;
  fingerprint: string;
  submittedAt: Date | null;
  openedAt: Date;
};

export type RankedCandidate = CandidateOperation & {
  matched: MatchedAttribute[];
  confidence: number;
  distanceMs: number;
};

/**
 * The operations whose request fingerprint, model and time best match the job, best first: by the
 * reconciliation score (the same one fresh searches use), then the closest in time. A candidate
 * agreeing on neither request nor model is none (time alone says nothing).
 */
export function rankCandidates(job: ChargeFacts, candidates: readonly CandidateOperation[]): RankedCandidate[] {
  const scorable = {
    createdAt: job.at.toISOString(),
    ...(job.model !== null ? { model: job.model } : {}),
    ...(job.fingerprint !== null ? { fingerprint: job.fingerprint } : {}),
  };
  return candidates
    .map((candidate) => {
      const score: ScoredJob | null = scoreListedJob(scorable, {
        model: candidate.model,
        fingerprint: candidate.fingerprint,
        submittedAt: candidate.submittedAt,
      });
      const distanceMs = Math.abs((candidate.submittedAt ?? candidate.openedAt).getTime() - job.at.getTime());
      return score ? { ...candidate, ...score, distanceMs } : null;
    })
    .filter((ranked): ranked is RankedCandidate => ranked !== null)
    .sort(
      (a, b) =>
        b.confidence - a.confidence ||
        a.distanceMs - b.distanceMs ||
        a.caseId.localeCompare(b.caseId) ||
        a.attemptId.localeCompare(b.attemptId),
    )
    .slice(0, MAX_CANDIDATES);
}

/**
 * The models one sweep asks a provider about: one list call without a model, or, where the list is
 * searched one model at a time (fal), each model the product knows for it, in a stable order.
 */
export function sweptModels(requiresModel: boolean, knownModels: readonly string[]): (string | undefined)[] {
  if (!requiresModel) return [undefined];
  return [...new Set(knownModels.filter((model) => model.trim() !== ""))].sort();
}

/** Past `now` too: a provider's clock a little ahead, or a job created as the sweep starts, is not missed. */
export const JOB_SWEEP_CLOCK_MARGIN_MS = 5 * 60_000;

/** The window one sweep reads: the last day and a bit, to a little past `now`. */
export function sweepWindow(now: Date): { from: Date; to: Date } {
  return {
    from: new Date(now.getTime() - JOB_SWEEP_LOOKBACK_MS),
    to: new Date(now.getTime() + JOB_SWEEP_CLOCK_MARGIN_MS),
  };
}
