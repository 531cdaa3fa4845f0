/**
 * Rule 17 (docs/design.md, decision 038): who owns a provider job is decided by the provider's own
 * evidence, never by who spoke first. Every door that names a job for an attempt (a producer's
 * report, a park, a reviewer's attach or confirmed suggestion, a verified webhook's signed
 * reference) asks the same two questions here: does the evidence allow this reference on this job
 * (`judgeReference`), and may this attempt claim this job (`judgeClaim`).
 */

/** The doors through which an attempt claims a job. */
export type ClaimDoor = "report" | "park" | "attach" | "reference";

/** What the provider itself says about a job, from its signed webhooks (absent when it did not say). */
export type ProviderFacts = {
  /** Fingerprint of the provider's copy of the request. */
  fingerprint?: string | null;
  model?: string | null;
  createdAt?: Date | null;
};

/** An attempt as the evidence is compared with it: its operation's request and the window it was sent in. */
export type ClaimantFacts = {
  attemptRef: string;
  fingerprint: string;
  model: string;
  /** From the permit's issue to its send deadline; null when the send was not made under a permit. */
  window: { from: Date; to: Date } | null;
};

/** The attempt that records the job now, and what it has already done with it. */
export type HolderFacts = ClaimantFacts & {
  /**
   * Why the job can no longer be taken from it automatically (its hold was settled on the job, its
   * case is past status checks or held by a worker), or null when nothing has come of the claim yet.
   */
  committed: string | null;
};

/** Clocks of the provider and of this deployment differ; a creation time this far outside the window still counts. */
export const CLOCK_SKEW_MS = 5 * 60_000;

/**
 * Why the provider's facts say this attempt did not create the job, or null when nothing contradicts
 * it. Only a contradiction counts: a fact the provider did not give proves nothing either way.
 */
export function refutedBy(facts: ProviderFacts, claimant: ClaimantFacts): string | null {
  if (facts.fingerprint && facts.fingerprint !== claimant.fingerprint) {
    return "the provider's copy of the request differs from the operation's";
  }
  const model = facts.model ? modelName(facts.model) : null;
  if (model && !HASH.test(model) && model !== modelName(claimant.model)) {
    return `the provider ran ${model}, the operation asked for ${claimant.model}`;
  }
  // A job the provider created before the permit was issued cannot be that permit's send. The other
  // end proves less: a create in flight at the send deadline may still be accepted after it.
  const at = facts.createdAt?.getTime();
  const window = claimant.window;
  if (at !== undefined && !Number.isNaN(at) && window && at < window.from.getTime() - CLOCK_SKEW_MS) {
    return "the provider created the job before the permit for this send was issued";
  }
  return null;
}

/** A bare version hash (Replicate names a version-only prediction so) says nothing about the model. */
const HASH = /^[0-9a-f]{64}$/;
/** `owner/name:version` and `owner/name` are the same model. */
const modelName = (model: string) => model.split(":")[0]?.toLowerCase() ?? model.toLowerCase();

export type ReferenceVerdict =
  /** The first webhook to show this reference on this job: the pair is fixed from now on. */
  | { kind: "bind" }
  /** The pair was fixed before, by the same job: nothing new. */
  | { kind: "bound" }
  /** Kept as evidence; attaches and settles nothing. */
  | { kind: "transplant"; reason: string };

/**
 * Whether a verified webhook's signed reference may stand for the job in its signed body. The
 * reference names one attempt, and one attempt's send creates one job: the first verified webhook
 * that carries it fixes the (attempt, job) pair, and a later one pairing it with another job (or the
 * job with another reference) is a transplant. So is a reference the signed body itself contradicts:
 * the URL the provider echoes inside the signature, or facts of the request that are not the attempt's.
 */
export function judgeReference(input: {
  referenced: ClaimantFacts;
  /** The attempt the job is fixed to by an earlier webhook, if any. */
  jobBoundTo: string | null;
  /** The job the reference is fixed to by an earlier webhook, if any. */
  referenceBoundTo: string | null;
  providerJobId: string;
  /** The reference inside the provider's signed body (the webhook URL it echoes), when it echoes one. */
  signedRefMatches: boolean | null;
  facts: ProviderFacts;
}): ReferenceVerdict {
  const transplant = (reason: string): ReferenceVerdict => ({ kind: "transplant", reason });
  if (input.signedRefMatches === false) {
    return transplant("the webhook URL inside the provider's signed body carries another reference");
  }
  if (input.jobBoundTo !== null && input.jobBoundTo !== input.referenced.attemptRef) {
    return transplant("an earlier webhook of this job carried another operation's reference");
  }
  if (input.referenceBoundTo !== null && input.referenceBoundTo !== input.providerJobId) {
    return transplant("this reference was first shown on another job: one send creates one job");
  }
  const refuted = refutedBy(input.facts, input.referenced);
  if (refuted) return transplant(refuted);
  return input.jobBoundTo === null ? { kind: "bind" } : { kind: "bound" };
}

export type ClaimVerdict =
  /** Nobody records the job and nothing contradicts the claimant: it records it. */
  | { kind: "take" }
  /** The claimant records it already. */
  | { kind: "keep" }
  /** The claim attaches nothing; the holder (if any) keeps the job. */
  | { kind: "refuse"; reason: string }
  /**
   * The provider's evidence shows the job is the claimant's and not the holder's, and nothing has
   * come of the holder's claim yet: the holder is disowned (its case or permit goes back to an
   * uncertain submission, its hold still held), the claimant records the job, both are flagged.
   */
  | { kind: "take_from_holder"; reason: string }
  /**
   * The evidence proves the claimant, but the holder's claim has already had effects nothing here
   * may undo (a settled hold, a case a worker holds or that is past status checks): neither moves,
   * both are flagged for a reviewer and finance with the evidence.
   */
  | { kind: "contest"; reason: string };

/**
 * Whether `claimant` may record the job. The provider's evidence ranks claims: a signed reference
 * fixed to an attempt proves it, facts of the provider's copy that contradict an attempt refute it,
 * and a bare claim (a report, a park, an attach, a webhook without a reference) proves nothing. A
 * refuted claim is refused; a claim that proves what the holder's cannot takes the job; between two
 * claims the evidence does not tell apart, the holder keeps the job and the claimant is refused, so
 * order decides only who holds a job until the provider's evidence arrives, never against it.
 */
export function judgeClaim(input: {
  door: ClaimDoor;
  claimant: ClaimantFacts;
  holder: HolderFacts | null;
  /** The attempt the provider's signed reference fixes the job to, if any. */
  boundTo: string | null;
  facts: ProviderFacts;
}): ClaimVerdict {
  const { claimant, holder, boundTo } = input;
  const against = (who: ClaimantFacts) =>
    boundTo !== null && boundTo !== who.attemptRef
      ? "the provider's signed reference ties the job to another operation's send"
      : refutedBy(input.facts, who);
  if (holder?.attemptRef === claimant.attemptRef) return { kind: "keep" };
  const refuted = against(claimant);
  if (refuted) return { kind: "refuse", reason: refuted };
  if (!holder) return { kind: "take" };
  const proven = boundTo === claimant.attemptRef;
  const holderRefuted = against(holder);
  if (!proven && !holderRefuted) {
    return { kind: "refuse", reason: "another operation records this job and the provider's evidence names neither" };
  }
  const why = proven
    ? "the provider's signed reference shows the job was created by this operation's send"
    : `the provider's evidence contradicts the other claim: ${holderRefuted}`;
  if (holder.committed)
    return { kind: "contest", reason: `${why}; the other claim cannot be undone here (${holder.committed})` };
  return { kind: "take_from_holder", reason: why };
}
