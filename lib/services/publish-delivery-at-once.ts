import type { Db, Prisma } from "@/lib/db/client";
import type { CaseState, Stage } from "@/lib/domain/stages";
import { decide } from "@/lib/domain/transitions";
import { newWebhookId } from "@/lib/notify/sign-webhook";
import { actorColumns, type WorkerActor } from "./actor";
import { type ClaimProof, casIs, claimIsHeld, heldClaimCtes } from "./lease-guard";
import { snapshotOf } from "./transition-case";

export type StoredOutput = {
  outputIndex: number;
  storageKey: string;
  sha256: string;
  size: number;
  contentType?: string;
};

export const DELIVERED_EVENT = "case.delivered";

/** What the producer's `case.delivered` webhook says, wherever it is written from. */
export function deliveredPayload(
  row: { id: string; operationId: string; attemptId: string; providerJobId: string | null },
  outputs: StoredOutput[],
): Prisma.InputJsonObject {
  return {
    caseId: row.id,
    operationId: row.operationId,
    attemptId: row.attemptId,
    providerJobId: row.providerJobId,
    assets: outputs.map((o) => ({
      outputIndex: o.outputIndex,
      storageKey: o.storageKey,
      sha256: o.sha256,
      size: o.size,
    })),
  };
}

export function deliveredEvidence(outputs: StoredOutput[]): Prisma.InputJsonObject {
  return {
    text: "asset stored and verified",
    assets: outputs.map((o) => ({ key: o.storageKey, sha256: o.sha256, size: o.size })),
  };
}

type Seen = {
  caseId: string;
  producer: string;
  operationId: string;
  attemptId: string;
  stage: Stage;
  state: CaseState;
  providerJobId: string | null;
  version: number;
  episode: number;
  held: boolean;
};

/**
 * publishDelivery in two statements: read the case, let the pure decision resolve it, then one
 * statement that re-checks the claim under a row lock, compares-and-sets the case on the state and
 * version that were read, and hangs the assets, the action, the audit row and (for a producer with
 * an active endpoint) the webhook off that update. `fall_back` leaves anything unusual to the
 * locked path.
 */
export async function publishInOneStatement(
  db: Db,
  worker: WorkerActor,
  proof: ClaimProof,
  outputs: StoredOutput[],
): Promise<"resolved" | "lost_claim" | "fall_back"> {
  const held = { ...proof, workerId: worker.workerId };
  const { actorId, actorLabel } = actorColumns(worker);
  for (let attempt = 0; attempt < 2; attempt++) {
    const [seen] = await db.$queryRaw<Seen[]>`
      SELECT c.id AS "caseId", c.producer, c.operation_id AS "operationId", c.attempt_id AS "attemptId",
             c.stage::text AS stage, c.state::text AS state, c.provider_job_id AS "providerJobId", c.version,
             c.episode, ${claimIsHeld(held)} AS held
      FROM recovery_actions a JOIN cases c ON c.id = a.case_id
      WHERE a.id = ${held.actionId}::uuid`;
    if (!seen?.held) return "lost_claim";
    const before = snapshotOf(seen);
    const decision = decide(before, { type: "finish_resolved" });
    if (!decision.ok || !decision.changesState) return "fall_back";
    const next = decision.next;
    const payload = {
      type: DELIVERED_EVENT,
      timestamp: new Date().toISOString(),
      data: deliveredPayload({ ...seen, id: seen.caseId }, outputs),
    };
    const assets = outputs.map((o) => ({ ...o, contentType: o.contentType ?? null }));
    const rows = await db.$queryRaw<{ held: bigint; moved: bigint }[]>`
      WITH ${heldClaimCtes(held)}, moved AS (
        UPDATE cases c
        SET delivery_attempts = c.delivery_attempts + 1, stage = ${next.stage}::"Stage",
            state = ${next.state}::"CaseState", provider_job_id = ${next.providerJobId}, version = c.version + 1,
            updated_at = now(), outcome = 'delivered',
            resolved_at = CASE WHEN ${next.state === "resolved" && before.state !== "resolved"} THEN now() ELSE c.resolved_at END
        FROM held WHERE c.id = held.case_id AND c.id = ${seen.caseId}::uuid AND ${casIs(seen)}
        RETURNING c.id, c.attempt_ref
      ), stored AS (
        INSERT INTO assets (case_id, attempt_ref, action_id, fencing_token, output_index, storage_key, sha256, size_bytes,
                            content_type, published_at)
        SELECT moved.id, moved.attempt_ref, ${held.actionId}::uuid, ${BigInt(held.fencingToken)}, o."outputIndex",
               o."storageKey", o.sha256, o.size, o."contentType", now()
        FROM moved CROSS JOIN jsonb_to_recordset(${JSON.stringify(assets)}::jsonb)
          AS o("outputIndex" int, "storageKey" text, sha256 text, size bigint, "contentType" text)
      ), ended AS (
        UPDATE recovery_actions a
        SET status = 'succeeded', outcome = 'delivered', lease_owner = NULL, lease_until = NULL, finished_at = now()
        FROM moved WHERE a.id = ${held.actionId}::uuid
      ), audited AS (
        INSERT INTO audit_events (case_id, episode, actor_kind, actor_id, actor_label, kind, before, after, evidence)
        SELECT moved.id, ${seen.episode}, 'worker', ${actorId}, ${actorLabel}, ${decision.auditKind},
               ${JSON.stringify({ ...before, version: seen.version })}::jsonb,
               ${JSON.stringify({ ...next, version: seen.version + 1 })}::jsonb,
               ${JSON.stringify(deliveredEvidence(outputs))}::jsonb
        FROM moved
      ), notified AS (
        INSERT INTO notification_outbox (id, producer, case_id, event_type, payload)
        SELECT ${newWebhookId()}, e.producer, moved.id, ${DELIVERED_EVENT}, ${JSON.stringify(payload)}::jsonb
        FROM moved JOIN notification_endpoints e ON e.producer = ${seen.producer} AND e.disabled_at IS NULL
      )
      SELECT (SELECT count(*) FROM held) AS held, (SELECT count(*) FROM moved) AS moved`;
    const row = rows[0];
    if (Number(row?.moved) === 1) return "resolved";
    if (Number(row?.held) !== 1) return "lost_claim";
  }
  return "fall_back";
}
