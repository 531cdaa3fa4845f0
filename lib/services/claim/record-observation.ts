import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { planSettle } from "@/lib/domain/holds";
import { actorColumns, type Principal } from "@/lib/domain/principal";
import { completionEvidence } from "@/lib/domain/provider-answer";
import { sanitise } from "@/lib/domain/sanitise";
import { decide } from "@/lib/domain/transitions";
import { earliestExpiry } from "@/lib/providers/output-expiry";
import { outputUrlForEvidence, statusForEvidence } from "@/lib/providers/outputs";
import type { JobStatus } from "@/lib/providers/types";
import { requireWorker, type WorkerActor } from "../access/actor";
import { caseChange, claimWriteEnded, snapshotOf } from "../case/writer/change";
import { pollCounted } from "../case/writer/facts";
import { chargeAfterRelease } from "../hold/charge-after-release";
import { resolvedCtes } from "../hold/writer/resolve";
import { type ClaimProof, claimIsHeld, currentCaseCtes, type HeldCase, heldClaimCtes } from "./lease-guard";
import { refuse, writeUnderClaim } from "./write-under-claim";

const SETTLE_NOTE = "settled on provider completion";
const SETTLE_ENTRY_NOTE = "provider reported completion";
const SETTLE_EVIDENCE = "charge is certain: the provider completed the job";

type Seen = HeldCase & {
  holdRef: string | null;
  holdId: string | null;
  holdMicros: bigint | null;
  holdStatus: string | null;
  held: boolean;
};

/**
 * Records what a status check saw, under the claim. A completion is also the moment the charge is
 * certain: the attempt's hold is settled in full in the same statement, and the case moves on to
 * delivery within the same claim. Returns false when the claim was lost (nothing written).
 */
export async function recordObservation(
  db: Db,
  actor: Principal,
  proof: ClaimProof,
  status: JobStatus,
): Promise<boolean> {
  const worker = requireWorker(actor);
  const held = { ...proof, workerId: worker.workerId };
  if (status.kind !== "completed") return observeOnly(db, held, status);
  return writeUnderClaim(db, held, async (db, locked) => {
    const [seen] = await sqlRows<Seen>(
      db,
      Prisma.sql`
      SELECT c.id AS "caseId", c.stage::text AS stage, c.state::text AS state, c.provider_job_id AS "providerJobId",
             c.version, c.episode, h.id AS "holdRef", h.hold_id AS "holdId", h.amount_micros AS "holdMicros",
             h.status::text AS "holdStatus", ${claimIsHeld(held)} AS held
      FROM recovery_actions a JOIN cases c ON c.id = a.case_id LEFT JOIN holds h ON h.attempt_ref = c.attempt_ref
      WHERE a.id = ${held.actionId}::uuid`,
    );
    if (!seen?.held) return false;
    if (seen.stage !== "polling") return observeOnly(db, held, status);
    return observeCompletion(db, worker, held, status, seen, locked);
  });
}

/**
 * A completion's outputs as an observation keeps them: URLs without their query strings (signed
 * parameters are credentials), and bytes given inline named by type and size, not copied.
 */
export function observedOutputs(status: JobStatus): string | null {
  if (status.kind !== "completed") return null;
  const outputs = status.outputs.map((o, index) => ({
    index,
    url: outputUrlForEvidence(o.url),
    contentType: o.contentType,
    size: o.size,
    expiresAt: o.expiresAt,
  }));
  return JSON.stringify(sanitise(outputs));
}

/** The observation row, one for each row of `source` (the claim's case: its `id` and `attempt_ref`). */
function insertObservation(source: Prisma.Sql, held: ClaimProof, status: JobStatus): Prisma.Sql {
  const outputs = observedOutputs(status);
  return Prisma.sql`INSERT INTO provider_observations
      (case_id, attempt_ref, action_id, fencing_token, kind, provider_status, outputs, detail)
    SELECT s.id, s.attempt_ref, ${held.actionId}::uuid, ${BigInt(held.fencingToken)}, ${status.kind},
           ${"providerStatus" in status ? status.providerStatus : null}, ${outputs}::jsonb,
           ${JSON.stringify(sanitise(statusForEvidence(status)))}::jsonb
    FROM ${source} s`;
}

/** Only evidence, a counter and the outputs' expiry: nothing is decided, so nothing needs the case as read. */
async function observeOnly(db: Db, held: ClaimProof, status: JobStatus): Promise<boolean> {
  const expiry = earliestExpiry(status);
  const rows = await sqlRows<{ held: bigint }>(
    db,
    Prisma.sql`
    WITH ${heldClaimCtes(held)}, observed AS (
      ${insertObservation(Prisma.sql`(SELECT c.id, c.attempt_ref FROM held JOIN cases c ON c.id = held.case_id)`, held, status)}
    ), ${pollCounted(Prisma.sql`held`, expiry)}
    SELECT count(*) AS held FROM held`,
  );
  return Number(rows[0]?.held) === 1;
}

/**
 * The pure functions decide (the stage move, the settlement plan) on the case as read; one
 * statement re-checks the claim under a row lock, locks the case only if it is still the version
 * that was read, and hangs every write off that. The hold is settled only if it is still held for
 * the amount that was planned, and its audit row only if it was.
 */
async function observeCompletion(
  db: Db,
  worker: WorkerActor,
  held: ClaimProof,
  status: Extract<JobStatus, { kind: "completed" }>,
  seen: Seen,
  locked: boolean,
): Promise<boolean | "stale"> {
  const before = snapshotOf(seen);
  const evidence = completionEvidence(status);
  const move = decide(before, { type: "move_stage", stage: "delivery", evidence });
  if (!move.ok) return refuse(move.error, locked);
  // DESIGN rule 18: a released hold's late charge is written with the move, so the rare completion
  // of a released hold takes the locked transaction (write-under-claim.ts) instead of one statement.
  const lateCharge = seen.holdStatus === "released" && seen.holdRef !== null;
  if (lateCharge && !locked) return "stale";
  const settling = seen.holdStatus === "held" && seen.holdMicros !== null;
  const plan = settling
    ? planSettle({ amountMicros: Number(seen.holdMicros), status: "held" }, Number(seen.holdMicros))
    : null;
  if (plan && !plan.ok) return refuse(plan.error, locked);
  const entries = plan?.value.entries ?? [];
  const { actorLabel } = actorColumns(worker);
  const settlement = resolvedCtes({
    holdRef: seen.holdRef,
    amountMicros: seen.holdMicros,
    plan: plan?.value ?? null,
    note: SETTLE_NOTE,
    entryNote: SETTLE_ENTRY_NOTE,
    actorLabel,
    from: Prisma.sql`kase`,
    where: Prisma.sql`h.attempt_ref = kase.attempt_ref`,
  });
  const settledAudit = {
    kind: "hold_settled",
    before: { holdId: seen.holdId, status: "held", amountMicros: Number(seen.holdMicros) },
    after: { status: "settled", entries: entries.map((e) => ({ ...e })) },
    evidence: { text: SETTLE_EVIDENCE },
  };
  const expiry = earliestExpiry(status);
  const rows = await sqlRows<{ held: bigint; moved: bigint }>(
    db,
    Prisma.sql`
    WITH ${heldClaimCtes(held)}, ${currentCaseCtes(seen)}, ${settlement}, ${caseChange({
      decision: move,
      seen,
      actor: worker,
      evidence: { text: evidence, outputs: status.outputs.length, actionId: held.actionId },
      set: Prisma.sql`poll_attempts = c.poll_attempts + 1,
          held_micros = c.held_micros - coalesce((SELECT amount_micros FROM settled), 0),
          outputs_expire_at = ${expiry}::timestamptz`,
      from: Prisma.sql`kase`,
      where: Prisma.sql`c.id = kase.id`,
      // The settlement is recorded before the move it made certain, and only if it happened.
      precededBy: { rows: settling ? [settledAudit] : [], gate: Prisma.sql`EXISTS (SELECT 1 FROM settled)` },
    })}, due AS (
      -- The claim carries on to delivery; if it is handed back, it is claimed again by this expiry.
      UPDATE recovery_actions a SET outputs_expire_at = ${expiry}::timestamptz
      FROM held, moved WHERE a.id = held.id
    ), observed AS (
      ${insertObservation(Prisma.sql`kase`, held, status)}
    )
    SELECT (SELECT count(*) FROM held) AS held, (SELECT count(*) FROM moved) AS moved`,
  );
  const ended = claimWriteEnded("move_stage", rows[0]);
  if (ended === "moved" && lateCharge && seen.holdRef) {
    await chargeAfterRelease(db, worker, { holdRef: seen.holdRef, how: "a status check saw the job completed" });
  }
  return ended === "moved" ? true : ended === "stale" ? "stale" : false;
}
