/**
 * A case's timeline names only its own producer's operations (decision 035, decision 055): where an
 * event's evidence points at another case (the search that found a job already recorded elsewhere,
 * an old job's disowning), a case of another producer is named only as this, with none of its IDs.
 */
export const ANOTHER_PRODUCERS_OPERATION = "another producer's operation";

type Evidence = { [key: string]: unknown };
/** Whose a named case or job is: its producer, or undefined when it is not known (then never named). */
export type Owners = {
  caseProducer: (caseId: string) => string | undefined;
  jobProducer: (jobId: string) => string | undefined;
};

const isObject = (value: unknown): value is Evidence =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const text = (value: unknown) => (typeof value === "string" ? value : null);

/** The case and job IDs an event's evidence names as someone else's, so their producers can be read at once. */
export function namedReferences(evidence: unknown): { caseIds: string[]; jobIds: string[] } {
  if (!isObject(evidence)) return { caseIds: [], jobIds: [] };
  const caseIds: string[] = [];
  const jobIds: string[] = [];
  const owner = text(evidence.ownerCaseId);
  if (owner) caseIds.push(owner);
  if (Array.isArray(evidence.attributedTo)) {
    for (const entry of evidence.attributedTo) {
      if (!isObject(entry)) continue;
      const caseId = text(entry.caseId);
      const jobId = text(entry.providerJobId);
      if (caseId) caseIds.push(caseId);
      else if (jobId) jobIds.push(jobId);
    }
  }
  return { caseIds, jobIds };
}

/**
 * The evidence as the case of `producer` tells it: an attribution to another producer's operation
 * (or to one whose producer is unknown) keeps no case ID and no job ID; anything else is unchanged.
 */
export function narrowNamedCases<T>(evidence: T, producer: string, owners: Owners): T {
  if (!isObject(evidence)) return evidence;
  const ownerOf = (entry: Evidence) => {
    const caseId = text(entry.caseId);
    if (caseId) return owners.caseProducer(caseId);
    const jobId = text(entry.providerJobId);
    return jobId ? owners.jobProducer(jobId) : undefined;
  };
  let narrowed: Evidence = evidence;
  const owner = text(evidence.ownerCaseId);
  if (owner && owners.caseProducer(owner) !== producer) {
    narrowed = { ...narrowed, ownerCaseId: null, owner: ANOTHER_PRODUCERS_OPERATION };
  }
  if (Array.isArray(evidence.attributedTo)) {
    const entries = evidence.attributedTo.map((entry: unknown) =>
      isObject(entry) && ownerOf(entry) === producer ? entry : { owner: ANOTHER_PRODUCERS_OPERATION },
    );
    narrowed = { ...narrowed, attributedTo: entries };
  }
  return narrowed as T;
}
