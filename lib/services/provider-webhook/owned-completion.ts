import { insertAuditSelect } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { planSettle } from "@/lib/domain/holds";
import { actorColumns } from "@/lib/domain/principal";
import { sanitise } from "@/lib/domain/sanitise";
import { decideOutcome } from "@/lib/domain/send-permits";
import { storedText } from "@/lib/domain/stored-text";
import { meaningOfWebhook } from "@/lib/domain/webhook-evidence";
import type { ProviderActor } from "../access/actor";
import { resolvedCtes } from "../hold/writer/resolve";
import { reporter } from "../permit/report-outcome";

/**
 * An accepted permit whose job a webhook names, as the intake's first statement finds it: the
 * permit is the job's owner with no case, the operation's latest, and its hold is held with no case.
 */
export type OwnedPermit = {
  permit_id: string;
  token: number;
  producer: string;
  operation_id: string;
  attempt_id: string;
  hold_ref: string;
  amount_micros: string;
};

/**
 * The accepted permit that owns a job, as `findTarget` reads it when the completion needs nothing
 * else: the permit is the job's owner with no case, the operation's latest, and its hold is held
 * with no case. Each row is reached by its own key from the job's attempt: a permit by its attempt,
 * a hold by its id, each in a subquery the planner may neither flatten nor filter (`OFFSET 0`), so
 * a prepared statement's generic plan, made while the tables were nearly empty, cannot walk a
 * partial index of every open permit or held hold instead (decision 081).
 */
export function selectOwnedPermit(provider: string, providerJobId: string): Prisma.Sql {
  return Prisma.sql`SELECT sp.id AS permit_id, sp.token, sp.producer, o.operation_id, a.attempt_id,
           h.id AS hold_ref, h.amount_micros::text AS amount_micros
    FROM attempts a
      CROSS JOIN LATERAL (SELECT * FROM send_permits WHERE attempt_ref = a.id OFFSET 0) sp
      JOIN operations o ON o.id = sp.operation_ref
      CROSS JOIN LATERAL (SELECT * FROM holds WHERE id = sp.hold_ref OFFSET 0) h
    WHERE a.provider = ${provider} AND a.provider_job_id = ${providerJobId}
      AND sp.status = 'accepted' AND sp.case_ref IS NULL AND sp.provider_job_id = a.provider_job_id
      AND NOT EXISTS (SELECT 1 FROM cases c WHERE c.operation_ref = o.id AND c.attempt_ref = a.id)
      AND NOT EXISTS (SELECT 1 FROM send_permits l WHERE l.operation_ref = sp.operation_ref AND l.token > sp.token)
      AND h.status = 'held' AND h.case_id IS NULL`;
}

/**
 * The provider's completion of a job an accepted permit owns, in one statement: the webhook's row
 * kept once, the permit completed, its hold settled by the money writer's CTEs (rule 7), and the
 * permit's audit event, exactly what `applyPermitReport` writes for it in a transaction
 * (docs/performance.md §7a). The permit and its hold are locked and checked again by the statement,
 * so a report, a finance decision or a duplicate that committed since the first read leaves it
 * writing nothing: null, and the transaction decides on what they wrote.
 */
export async function completeOwnedPermit(
  db: Db,
  actor: ProviderActor,
  input: {
    owner: OwnedPermit;
    providerJobId: string;
    signedAt: Date;
    status: Parameters<typeof meaningOfWebhook>[1];
    keptRow: (row: { outcome: "permit_reported"; note: string; permitRef: string }) => Prisma.Sql;
    /** The completion's vault intent (decision 075), written only when `gate` holds; null when none is kept. */
    vaultIntent: (gate: Prisma.Sql) => Prisma.Sql | null;
  },
): Promise<boolean> {
  const { owner, providerJobId } = input;
  // The domain's rules decide, as for any webhook: only a completion of an accepted permit settles.
  const verdict = meaningOfWebhook({ kind: "permit", status: "accepted" }, input.status);
  if (verdict.kind !== "report_permit" || verdict.outcome !== "completed") return false;
  const effect = decideOutcome(
    { status: "accepted", token: owner.token, providerJobId, latestToken: owner.token, caseRef: null },
    owner.token,
    { kind: "completed", providerJobId },
  );
  if (!effect.ok || effect.value.kind !== "settle") return false;
  const amount = BigInt(owner.amount_micros);
  const plan = planSettle({ amountMicros: Number(amount), status: "held" }, Number(amount));
  if (!plan.ok) return false;
  const evidence = {
    source: `${actor.provider} webhook`,
    webhookId: actor.webhookId,
    signedAt: input.signedAt.toISOString(),
    signature: "verified",
    providerJobId,
  };
  const { actorKind, actorId, actorLabel } = actorColumns(actor);
  const after = {
    producer: owner.producer,
    operationId: owner.operation_id,
    attemptId: owner.attempt_id,
    token: owner.token,
    holdSettledMicros: Number(amount),
  };
  // Kept in the same statement as the completion it follows, so the path costs no third round trip.
  const vault = input.vaultIntent(Prisma.sql`EXISTS (SELECT 1 FROM p JOIN settled ON settled.id = p.hold_ref)`);
  const rows = await sqlRows<{ completed: number }>(
    db,
    Prisma.sql`
    WITH locked AS (
      -- Each row by its key alone, locked (the permit, then its hold), then checked as it is now
      -- (selectOwnedPermit, decision 081).
      SELECT sp.id
      FROM (SELECT * FROM send_permits WHERE id = ${owner.permit_id}::uuid OFFSET 0 FOR UPDATE) sp
        CROSS JOIN LATERAL (SELECT * FROM holds WHERE id = sp.hold_ref AND id = ${owner.hold_ref}::uuid OFFSET 0 FOR UPDATE) h
      WHERE sp.status = 'accepted' AND sp.case_ref IS NULL
        AND sp.provider_job_id = ${providerJobId} AND sp.token = ${owner.token}
        AND NOT EXISTS (SELECT 1 FROM send_permits l WHERE l.operation_ref = sp.operation_ref AND l.token > sp.token)
        AND h.status = 'held' AND h.case_id IS NULL AND h.amount_micros = ${amount}
    ), kept AS (
      ${input.keptRow({ outcome: "permit_reported", note: "permit completed", permitRef: owner.permit_id })}
      WHERE EXISTS (SELECT 1 FROM locked)
      ON CONFLICT (provider, webhook_id) DO NOTHING
      RETURNING id
    ), p AS (
      UPDATE send_permits sp SET status = 'completed', provider_job_id = ${providerJobId}, reported_at = now(),
             last_report = ${JSON.stringify(sanitise({ ...evidence, outcome: "completed" }))}::jsonb
      FROM locked, kept WHERE sp.id = locked.id
      RETURNING sp.id, sp.hold_ref, sp.operation_ref
    ), ${resolvedCtes({
      holdRef: owner.hold_ref,
      amountMicros: amount,
      plan: plan.value,
      note: `settled on ${reporter(actor)} that the job completed`,
      actorLabel,
      from: Prisma.sql`p`,
      where: Prisma.sql`h.id = p.hold_ref`,
    })}, audit AS (
      ${insertAuditSelect(
        Prisma.sql`
        SELECT NULL::uuid, NULL::int, ${actorKind}::"ActorKind", ${actorId}, ${actorLabel}, 'permit_completed', NULL::jsonb,
               ${JSON.stringify(after)}::jsonb, ${JSON.stringify(storedText(evidence, { storePrompts: false }))}::jsonb,
               p.operation_ref
        FROM p JOIN settled ON settled.id = p.hold_ref`,
        { operation: true },
      )}
    )${vault ? Prisma.sql`, vault AS (${vault})` : Prisma.empty}
    SELECT count(*)::int AS completed FROM p JOIN settled ON settled.id = p.hold_ref`,
  );
  return (rows[0]?.completed ?? 0) === 1;
}
