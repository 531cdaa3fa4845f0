import type { Db } from "@/lib/db/client";
import { namedReferences, narrowNamedCases } from "@/lib/domain/named-cases";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Audit events of one case as every reader sees them: evidence naming another producer's case or
 * job keeps none of its IDs (decision 055). Events recorded before the worker narrowed them itself
 * are narrowed here, with the named cases' and jobs' producers read in two statements.
 */
export async function narrowEventsOfCase<E extends { evidence: unknown }>(
  db: Db,
  kase: { producer: string; provider: string },
  events: E[],
): Promise<E[]> {
  const caseIds = new Set<string>();
  const jobIds = new Set<string>();
  for (const event of events) {
    const named = namedReferences(event.evidence);
    // An ID that is not a case's (no UUID) names no case of this deployment; it stays unnamed.
    for (const id of named.caseIds) if (UUID.test(id)) caseIds.add(id);
    for (const id of named.jobIds) jobIds.add(id);
  }
  if (caseIds.size === 0 && jobIds.size === 0) return events;
  const [cases, attempts] = await Promise.all([
    caseIds.size === 0
      ? []
      : db.case.findMany({ where: { id: { in: [...caseIds] } }, select: { id: true, producer: true } }),
    jobIds.size === 0
      ? []
      : db.attempt.findMany({
          where: { provider: kase.provider, providerJobId: { in: [...jobIds] } },
          select: { providerJobId: true, operation: { select: { producer: true } } },
        }),
  ]);
  const caseProducers = new Map(cases.map((c) => [c.id, c.producer]));
  const jobProducers = new Map(attempts.map((a) => [a.providerJobId ?? "", a.operation.producer]));
  const owners = {
    caseProducer: (id: string) => caseProducers.get(id),
    jobProducer: (id: string) => jobProducers.get(id),
  };
  return events.map((event) => ({ ...event, evidence: narrowNamedCases(event.evidence, kase.producer, owners) }));
}
