import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { decide } from "@/lib/domain/transitions";
import { requireWorker } from "../access/actor";
import { flagDuplicateOutputs, lockOutputDigests } from "../case/flag-duplicate-outputs";
import { caseChange, claimWriteEnded, snapshotOf } from "../case/writer/change";
import { chargeCaseIfReleased } from "../hold/charge-after-release";
import { webhookMessage } from "../notification/enqueue-notification";
import type { FinishOutcome } from "./finish-action";
import { type ClaimProof, claimIsHeld, type HeldCase, heldClaimCtes } from "./lease-guard";
import { forgetOutputUrls } from "./output-urls";
import { refuse, writeUnderClaim } from "./write-under-claim";

export type StoredOutput = {
  outputIndex: number;
  storageKey: string;
  sha256: string;
  size: number;
  contentType?: string;
};

const DELIVERED_EVENT = "case.delivered";

type Seen = HeldCase & {
  producer: string;
  operationId: string;
  attemptId: string;
  held: boolean;
  reserved: bigint;
  chargeDue: boolean;
};

/**
 * Publishes verified files and resolves the case, only while this claim is still held: a late,
 * stale worker (older fencing token) finds no claim and publishes nothing, whatever it managed to
 * store. Publishing flips the rows this claim reserved (reserve-assets.ts) before writing; a
 * file with no reservation of this claim is never published. The pure decision resolves the case as read; one statement re-checks the claim under a
 * row lock, compares-and-sets the case on that state and version, and hangs the assets, the
 * action, the audit row, the kept output URLs' removal and (for a producer with an active endpoint)
 * the webhook off that update.
 *
 * Decision 072: the copies' digests are locked first, and the same transaction compares the
 * published copies with every earlier one, so two paid jobs that delivered the same bytes are
 * flagged once, even when both publish at the same moment.
 */
export async function publishDelivery(
  db: Db,
  actor: Principal,
  proof: ClaimProof,
  outputs: StoredOutput[],
): Promise<FinishOutcome> {
  const worker = requireWorker(actor);
  const held = { ...proof, workerId: worker.workerId };
  const assets = outputs.map((o) => ({ ...o, contentType: o.contentType ?? null }));
  const outputSet = Prisma.sql`jsonb_to_recordset(${JSON.stringify(assets)}::jsonb)
    AS o("outputIndex" int, "storageKey" text, sha256 text, size bigint, "contentType" text)`;
  const evidence = {
    text: "asset stored and verified",
    assets: outputs.map((o) => ({ key: o.storageKey, sha256: o.sha256, size: o.size })),
  };
  const digests = outputs.map((o) => o.sha256);
  const publish = async (db: Db, locked: boolean): Promise<FinishOutcome | "stale"> => {
    const [seen] = await sqlRows<Seen>(
      db,
      Prisma.sql`
      SELECT c.id AS "caseId", c.producer, c.operation_id AS "operationId", c.attempt_id AS "attemptId",
             c.stage::text AS stage, c.state::text AS state, c.provider_job_id AS "providerJobId", c.version,
             c.episode, ${claimIsHeld(held)} AS held,
             (SELECT count(*) FROM assets r JOIN ${outputSet} ON o."storageKey" = r.storage_key
              WHERE r.action_id = a.id AND r.fencing_token = ${BigInt(held.fencingToken)} AND r.published_at IS NULL
                AND r.output_index = o."outputIndex") AS reserved,
             EXISTS (SELECT 1 FROM holds h WHERE h.attempt_ref = c.attempt_ref AND h.status = 'released'
                       AND h.late_charged_at IS NULL) AS "chargeDue"
      FROM recovery_actions a JOIN cases c ON c.id = a.case_id
      WHERE a.id = ${held.actionId}::uuid`,
    );
    if (!seen?.held) return "lost_claim";
    // DESIGN rule 18: stored outputs prove the completion. A hold released before them is charged in
    // the transaction that resolves the case (the locked retry), so no crash falls between the two.
    if (seen.chargeDue && !locked) return "stale";
    if (Number(seen.reserved) !== outputs.length) {
      return refuse(new Error("the outputs to publish are not all reserved by this claim"), locked);
    }
    const decision = decide(snapshotOf(seen), { type: "finish_resolved" });
    if (!decision.ok) return refuse(decision.error, locked);
    const message = webhookMessage(DELIVERED_EVENT, {
      caseId: seen.caseId,
      operationId: seen.operationId,
      attemptId: seen.attemptId,
      providerJobId: seen.providerJobId,
      assets: outputs.map(({ outputIndex, storageKey, sha256, size }) => ({ outputIndex, storageKey, sha256, size })),
    });
    const rows = await sqlRows<{ held: bigint; moved: bigint }>(
      db,
      Prisma.sql`
      WITH ${heldClaimCtes(held)}, ${caseChange({
        decision,
        seen,
        actor: worker,
        evidence,
        // The delivery is the case's last attempt, which the queue sorts by (decision 069).
        set: Prisma.sql`delivery_attempts = c.delivery_attempts + 1, outcome = 'delivered', last_attempt_at = now()`,
        from: Prisma.sql`held`,
        where: Prisma.sql`c.id = held.case_id`,
      })}, stored AS (
        UPDATE assets r
        SET sha256 = o.sha256, size_bytes = o.size, content_type = o."contentType", published_at = now()
        FROM moved CROSS JOIN ${outputSet}
        WHERE r.action_id = ${held.actionId}::uuid AND r.fencing_token = ${BigInt(held.fencingToken)}
          AND r.storage_key = o."storageKey" AND r.output_index = o."outputIndex" AND r.case_id = moved.id
          AND r.published_at IS NULL
      ), ended AS (
        UPDATE recovery_actions a
        SET status = 'succeeded', outcome = 'delivered', lease_owner = NULL, lease_until = NULL, finished_at = now()
        FROM moved WHERE a.id = ${held.actionId}::uuid
      ), forgotten AS (
        -- Delivered: the URLs kept to fetch the outputs again have nothing left to do (DESIGN rule 20).
        ${forgetOutputUrls(Prisma.sql`moved`)}
      ), notified AS (
        INSERT INTO notification_outbox (id, producer, case_id, event_type, payload)
        SELECT ${message.id}, e.producer, moved.id, ${DELIVERED_EVENT}, ${JSON.stringify(message.payload)}::jsonb
        FROM moved JOIN notification_endpoints e ON e.producer = ${seen.producer} AND e.disabled_at IS NULL
      )
      SELECT (SELECT count(*) FROM held) AS held, (SELECT count(*) FROM moved) AS moved`,
    );
    const ended = claimWriteEnded("finish_resolved", rows[0]);
    if (ended !== "moved") return ended;
    await flagDuplicateOutputs(
      db,
      worker,
      outputs.map((o) => o.storageKey),
    );
    if (seen.chargeDue) await chargeCaseIfReleased(db, worker, seen.caseId, "the worker stored the outputs");
    return "resolved";
  };
  return writeUnderClaim(
    db,
    held,
    (db, locked) =>
      locked
        ? publish(db, true)
        : inTransaction(db, async (tx) => {
            await lockOutputDigests(tx, digests);
            return publish(tx, false);
          }),
    { beforeRowLocks: (tx) => lockOutputDigests(tx, digests) },
  );
}
