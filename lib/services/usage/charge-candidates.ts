import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { CANDIDATE_WINDOW_MS, type CandidateOperation } from "@/lib/domain/unexplained-charges";

/** A charge of the page that names a job: where and when it was made. */
export type ChargeNear = { provider: string; at: Date };

/** How many sends near one charge are scored: the closest in time. */
const SENDS_SCORED_PER_CHARGE = 100;

type CandidateRow = {
  charge: number;
  case_id: string;
  attempt_id: string;
  stage: string;
  state: string;
  uncertain: boolean;
  operation_id: string;
  producer: string;
  model: string;
  fingerprint: string;
  submitted_at: Date | null;
  opened_at: Date;
};

/**
 * The sends near each of a page's charges, in one statement whatever the page's size: for each
 * charge (by its position in `charges`), the job-less sends at its provider within a day of it that
 * hold money its charge could land on (decision 080): a parked uncertain submission's attempt, or
 * any other job-less attempt of an operation with a case, unless it is the current attempt of a
 * case someone is working on (its review attaches it). The attempt's own time where it has one,
 * else when it was recorded; the closest hundred per charge. The window is a range on the partial
 * index `attempts_jobless_sent_at`, so the job-less sends of other days are never read.
 */
export function chargeCandidatesSql(charges: readonly ChargeNear[]): Prisma.Sql {
  const iso = (ms: number) => new Date(ms).toISOString();
  const providers = charges.map((c) => c.provider);
  const ats = charges.map((c) => c.at.toISOString());
  const froms = charges.map((c) => iso(c.at.getTime() - CANDIDATE_WINDOW_MS));
  const tos = charges.map((c) => iso(c.at.getTime() + CANDIDATE_WINDOW_MS));
  return Prisma.sql`
    SELECT k.n::int - 1 AS charge, x.*
    FROM unnest(${providers}::text[], ${ats}::timestamptz[], ${froms}::timestamptz[], ${tos}::timestamptz[])
      WITH ORDINALITY AS k(provider, at, from_at, to_at, n)
    CROSS JOIN LATERAL (
      SELECT c.id::text AS case_id, a.attempt_id, c.stage::text, c.state::text,
             (c.attempt_ref = a.id AND c.stage = 'submission_uncertain' AND c.state = 'parked') AS uncertain,
             c.operation_id, c.producer, c.model, o.request_fingerprint AS fingerprint,
             coalesce(a.submitted_at, a.created_at) AS submitted_at, c.opened_at
      FROM attempts a JOIN operations o ON o.id = a.operation_ref JOIN cases c ON c.operation_ref = o.id
      WHERE a.provider = k.provider AND a.provider_job_id IS NULL
        AND coalesce(a.submitted_at, a.created_at) BETWEEN k.from_at AND k.to_at
        AND EXISTS (SELECT 1 FROM holds h WHERE h.attempt_ref = a.id)
        AND (c.attempt_ref <> a.id OR c.state = 'resolved' OR (c.stage = 'submission_uncertain' AND c.state = 'parked'))
      ORDER BY abs(extract(epoch FROM coalesce(a.submitted_at, a.created_at) - k.at)), a.id
      LIMIT ${SENDS_SCORED_PER_CHARGE}
    ) x`;
}

/** The candidates of each charge, by the charge's position in `charges` (none: an empty list). */
export async function candidatesOfCharges(db: Db, charges: readonly ChargeNear[]): Promise<CandidateOperation[][]> {
  const byCharge = charges.map((): CandidateOperation[] => []);
  if (charges.length === 0) return byCharge;
  const rows = await db.$queryRaw<CandidateRow[]>(chargeCandidatesSql(charges));
  for (const r of rows)
    byCharge[r.charge]?.push({
      caseId: r.case_id,
      attemptId: r.attempt_id,
      stage: r.stage,
      state: r.state,
      uncertain: r.uncertain,
      operationId: r.operation_id,
      producer: r.producer,
      model: r.model,
      fingerprint: r.fingerprint,
      submittedAt: r.submitted_at,
      openedAt: r.opened_at,
    });
  return byCharge;
}
