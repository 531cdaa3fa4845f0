import { insertAuditSelect } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { committedAlone, sqlRows } from "@/lib/db/sql-rows";
import { isUniqueViolation } from "@/lib/db/unique-violation";
import { judgeClaim } from "@/lib/domain/job-claims";
import { actorColumns } from "@/lib/domain/principal";
import { decideOutcome } from "@/lib/domain/send-permits";
import { storedText } from "@/lib/domain/stored-text";
import { PROVIDER_NAMES, providerJobIdProblem } from "@/lib/providers/registry";
import type { OutcomeReportInput } from "@/lib/validation/permits";
import type { ProducerActor } from "../access/actor";
import type { OutcomeResult } from "./report-outcome";

/**
 * The state the one statement below writes on, as the rules see it: a live permit that is its
 * operation's latest, under the report's token, with no job and no case yet, and a job nobody holds,
 * no signed reference binds and no provider webhook has spoken of.
 */
const LIVE = { status: "live", providerJobId: null, caseRef: null } as const;

/**
 * What the rules do with an `accepted` report on that state: asked of the pure decisions themselves
 * (lib/domain/send-permits.ts, lib/domain/job-claims.ts), so the statement writes their answer and
 * never a rule of its own. Anything but "record the job, and take it" leaves the report to the
 * locked transaction.
 */
function rulesAllow(token: number, providerJobId: string): boolean {
  const verdict = decideOutcome({ ...LIVE, token, latestToken: token }, token, { kind: "accepted", providerJobId });
  if (!verdict.ok || verdict.value.kind !== "record_job" || verdict.value.next !== "accepted") return false;
  const claimant = { attemptRef: "claimant", fingerprint: "", model: "", window: null };
  return judgeClaim({ door: "report", claimant, holder: null, boundTo: null, facts: {} }).kind === "take";
}

/**
 * DESIGN 6a, the common report: the provider accepted the send. When the permit and the job are in
 * the state above, everything the locked transaction would write (the permit accepted with its job
 * and the report, the attempt's job, the `permit_accepted` audit row) is written by one statement
 * that locks the permit, read by its key, and checks that state under the lock, so a report
 * holds no lock across round trips (docs/performance.md §7a). Anything else (a stale token, a repeat,
 * a permit parked or raced by the deadline sweep or a webhook, a job someone holds or the provider
 * spoke of, a job ID the provider could not issue) writes nothing and answers `null`: the caller
 * decides under the permit's lock as before, so the rules have one implementation. A job another
 * attempt records meanwhile trips the attempts' unique key; that too is left to the locked path,
 * which refuses it. Only a statement that commits alone takes this path, so a refusal there cannot
 * abort a caller's transaction.
 */
export async function reportAcceptedAtOnce(
  db: Db,
  producer: ProducerActor,
  attemptId: string,
  input: OutcomeReportInput,
  options: { storePrompts: boolean },
): Promise<OutcomeResult | null> {
  const job = input.providerJobId;
  if (input.outcome !== "accepted" || !job || !committedAlone(db)) return null;
  if (!rulesAllow(input.token, job)) return null;
  try {
    const rows = await sqlRows<{ id: string }>(db, acceptedReportStatement(producer, attemptId, input, job, options));
    if (rows.length === 0) return null;
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
  return {
    operationId: input.operationId,
    attemptId,
    status: "accepted",
    providerJobId: job,
    caseId: null,
    changed: true,
  };
}

/**
 * The one statement of `reportAcceptedAtOnce`, on its own so its plan can be checked
 * (tests/integration/webhook-intake-plans.test.ts).
 */
export function acceptedReportStatement(
  producer: ProducerActor,
  attemptId: string,
  input: OutcomeReportInput,
  job: string,
  options: { storePrompts: boolean },
): Prisma.Sql {
  const { storePrompts } = options;
  const { actorKind, actorId, actorLabel } = actorColumns(producer);
  // The job ID must be one the operation's provider issues: a provider that could not name it is left out.
  const unreadable = PROVIDER_NAMES.filter((provider) => providerJobIdProblem(provider, job) !== null);
  const note = storedText(input, { storePrompts });
  const evidence = storedText({ ...input.evidence, outcome: input.outcome, token: input.token }, { storePrompts });
  const after = {
    producer: producer.name,
    operationId: input.operationId,
    attemptId,
    token: input.token,
    providerJobId: job,
  };
  return Prisma.sql`
  WITH locked AS (
    -- The attempt by its key and the permit by its attempt, each alone, the permit locked and then
    -- checked as it is now: a prepared statement's generic plan, made while the tables were nearly
    -- empty, would otherwise walk every attempt without a job or every open permit (decision 081).
    SELECT sp.id
    FROM operations o
      CROSS JOIN LATERAL (SELECT * FROM attempts WHERE operation_ref = o.id AND attempt_id = ${attemptId} OFFSET 0) a
      CROSS JOIN LATERAL (SELECT * FROM send_permits WHERE attempt_ref = a.id OFFSET 0 FOR UPDATE) sp
    WHERE o.producer = ${producer.name} AND o.operation_id = ${input.operationId} AND sp.operation_ref = o.id
      AND sp.status = 'live' AND sp.token = ${input.token} AND sp.provider_job_id IS NULL AND sp.case_ref IS NULL
      AND a.provider_job_id IS NULL AND a.provider <> ALL (${unreadable}::text[])
      AND NOT EXISTS (SELECT 1 FROM send_permits l WHERE l.operation_ref = o.id AND l.token > sp.token)
      AND NOT EXISTS (SELECT 1 FROM attempts h WHERE h.provider = a.provider AND h.provider_job_id = ${job})
      AND NOT EXISTS (SELECT 1 FROM job_references r WHERE r.provider = a.provider AND r.provider_job_id = ${job})
      AND NOT EXISTS (SELECT 1 FROM provider_webhooks w WHERE w.provider = a.provider AND w.provider_job_id = ${job})
  ), permit AS (
    UPDATE send_permits p
    SET status = 'accepted', provider_job_id = ${job}, last_report = ${JSON.stringify(note)}::jsonb,
        reported_at = now()
    FROM locked WHERE p.id = locked.id
    RETURNING p.id, p.attempt_ref, p.operation_ref
  ), att AS (
    UPDATE attempts SET provider_job_id = ${job} FROM permit WHERE attempts.id = permit.attempt_ref
    RETURNING permit.id, permit.operation_ref
  ), audit AS (
    ${insertAuditSelect(
      Prisma.sql`
    SELECT NULL::uuid, NULL::int, ${actorKind}::"ActorKind", ${actorId}, ${actorLabel}, 'permit_accepted',
           NULL::jsonb, ${JSON.stringify(after)}::jsonb, ${JSON.stringify(evidence)}::jsonb, att.operation_ref
    FROM att`,
      { operation: true },
    )}
  )
  SELECT id FROM att`;
}
