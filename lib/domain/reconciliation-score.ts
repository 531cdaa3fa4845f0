import { requestFingerprint } from "./fingerprint";

/** A listed job created this close to the recorded submission time counts as "submitted at the same moment". */
export const SUBMITTED_WITHIN_MS = 60_000;

export type MatchedAttribute = "client_reference" | "fingerprint" | "model" | "submitted_within_60s";

/** The fingerprint is the strongest signal: the provider's copy of the request equals the producer's. */
export const MATCH_WEIGHTS: Readonly<Record<MatchedAttribute, number>> = {
  client_reference: 70,
  fingerprint: 60,
  model: 25,
  submitted_within_60s: 15,
};
const ORDER: readonly MatchedAttribute[] = ["client_reference", "fingerprint", "model", "submitted_within_60s"];

/**
 * What scoring reads of a job the provider listed (or a webhook named); `input` is its copy of the
 * request, fingerprinted only, or `fingerprint` when only that was kept.
 */
export type ScorableJob = { model?: string; createdAt: string; input?: unknown; fingerprint?: string };
export type SuggestionTarget = { model: string; fingerprint: string; submittedAt: Date | null };
export type ScoredJob = { matched: MatchedAttribute[]; confidence: number };

/** Fingerprints the provider's copy of the request; an input that cannot be fingerprinted matches nothing. */
export function fingerprintOf(input: unknown): string | null {
  if (input === undefined) return null;
  try {
    return requestFingerprint(input);
  } catch {
    return null;
  }
}

/**
 * Which attributes of a listed job agree with the case, and a confidence from 0 to 100. A job that
 * agrees on neither the request nor the model (nor a client reference) is no candidate at all:
 * being created at about the same time alone says nothing.
 */
export function scoreListedJob(job: ScorableJob, target: SuggestionTarget, viaReference = false): ScoredJob | null {
  const matched = new Set<MatchedAttribute>();
  if (viaReference) matched.add("client_reference");
  if ((job.fingerprint ?? fingerprintOf(job.input)) === target.fingerprint) matched.add("fingerprint");
  if (job.model !== undefined && job.model === target.model) matched.add("model");
  const created = Date.parse(job.createdAt);
  if (
    target.submittedAt &&
    !Number.isNaN(created) &&
    Math.abs(created - target.submittedAt.getTime()) <= SUBMITTED_WITHIN_MS
  ) {
    matched.add("submitted_within_60s");
  }
  if (!matched.has("client_reference") && !matched.has("fingerprint") && !matched.has("model")) return null;
  const list = ORDER.filter((attribute) => matched.has(attribute));
  const confidence = Math.min(
    100,
    list.reduce((sum, attribute) => sum + MATCH_WEIGHTS[attribute], 0),
  );
  return { matched: list, confidence };
}

/** The client reference, or the provider's copy of the request fingerprinting equal to ours. */
export function isStrongMatch(score: ScoredJob): boolean {
  return score.matched.includes("client_reference") || score.matched.includes("fingerprint");
}
