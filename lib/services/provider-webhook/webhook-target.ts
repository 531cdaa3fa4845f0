import type { WebhookReference } from "@/lib/auth/webhook-reference";
import type { Prisma } from "@/lib/db/client";
import type { PermitStatus } from "@/lib/domain/send-permits";
import type { CaseState, Stage } from "@/lib/domain/stages";
import type { WebhookTarget } from "@/lib/domain/webhook-evidence";

/** What a webhook is about, as found: the domain's target, and the rows it names. */
export type Found = {
  target: WebhookTarget;
  caseId: string | null;
  permitId: string | null;
  /** The attempt of the referenced operation (for an attach). */
  attemptRef: string | null;
};

type OwnerRow = {
  attempt_ref: string;
  case_id: string | null;
  case_job: string | null;
  case_attempt: string | null;
  stage: Stage | null;
  state: CaseState | null;
  permit_id: string | null;
  permit_status: PermitStatus | null;
  permit_case: string | null;
  permit_attempt?: string | null;
};

/** Who the job belongs to (rule 11's owner), else the attempt a verified reference names, else nobody. */
export async function findTarget(
  tx: Prisma.TransactionClient,
  provider: string,
  providerJobId: string,
  reference: WebhookReference | null,
): Promise<Found> {
  const [owner] = await tx.$queryRaw<OwnerRow[]>`
    SELECT a.id AS attempt_ref, c.id AS case_id, c.provider_job_id AS case_job, c.attempt_ref AS case_attempt, c.stage::text AS stage,
           c.state::text AS state, p.id AS permit_id, p.status::text AS permit_status, p.case_ref AS permit_case
    FROM attempts a JOIN operations o ON o.id = a.operation_ref
    LEFT JOIN cases c ON c.operation_ref = o.id
    LEFT JOIN send_permits p ON p.attempt_ref = a.id
    WHERE a.provider = ${provider} AND a.provider_job_id = ${providerJobId}`;
  if (owner) return ownedTarget(owner);
  if (!reference) return { target: { kind: "none" }, caseId: null, permitId: null, attemptRef: null };
  const [named] = await tx.$queryRaw<OwnerRow[]>`
    SELECT a.id AS attempt_ref, c.id AS case_id, c.provider_job_id AS case_job, c.attempt_ref AS case_attempt, c.stage::text AS stage,
           c.state::text AS state, p.id AS permit_id, p.status::text AS permit_status, p.case_ref AS permit_case,
           p.attempt_ref AS permit_attempt
    FROM operations o
    LEFT JOIN cases c ON c.operation_ref = o.id
    LEFT JOIN LATERAL (SELECT * FROM send_permits sp WHERE sp.operation_ref = o.id ORDER BY sp.token DESC LIMIT 1) p ON TRUE
    -- The attempt in question: a send in flight under the latest permit (a replacement's, say, while
    -- the case of the episode it replaces is resolved), else the case's own attempt.
    LEFT JOIN attempts a ON a.id = CASE WHEN p.case_ref IS NULL AND p.status IN ('live', 'accepted')
                                        THEN p.attempt_ref ELSE coalesce(c.attempt_ref, p.attempt_ref) END
    WHERE o.producer = ${reference.producer} AND o.operation_id = ${reference.operationId} AND o.provider = ${provider}
      -- Only while the referenced attempt is still the one in question: a replacement or a new
      -- episode is another attempt, and the first one's late webhook is not evidence about it.
      AND a.attempt_id = ${reference.attemptId}`;
  if (!named) return { target: { kind: "none" }, caseId: null, permitId: null, attemptRef: null };
  if (named.permit_id && named.permit_status && !named.permit_case && named.permit_attempt === named.attempt_ref) {
    return {
      target: { kind: "referenced_permit", status: named.permit_status },
      caseId: null,
      permitId: named.permit_id,
      attemptRef: named.attempt_ref,
    };
  }
  if (named.case_id && named.stage && named.state && named.case_attempt === named.attempt_ref) {
    return {
      target: { kind: "referenced_case", stage: named.stage, state: named.state, providerJobId: named.case_job },
      caseId: named.case_id,
      permitId: null,
      attemptRef: named.attempt_ref,
    };
  }
  return { target: { kind: "none" }, caseId: null, permitId: null, attemptRef: null };
}

function ownedTarget(owner: OwnerRow): Found {
  const base = { permitId: owner.permit_id, attemptRef: owner.attempt_ref };
  if (owner.case_id && owner.case_attempt === owner.attempt_ref && owner.stage && owner.state) {
    return { ...base, target: { kind: "case", stage: owner.stage, state: owner.state }, caseId: owner.case_id };
  }
  if (owner.permit_id && owner.permit_status && !owner.permit_case) {
    return { ...base, target: { kind: "permit", status: owner.permit_status }, caseId: null };
  }
  return { ...base, target: { kind: "superseded_attempt" }, caseId: owner.case_id };
}
