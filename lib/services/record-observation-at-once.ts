import type { Db, Prisma } from "@/lib/db/client";
import { planSettle } from "@/lib/domain/holds";
import { sanitise } from "@/lib/domain/sanitise";
import type { CaseState, Stage } from "@/lib/domain/stages";
import { decide } from "@/lib/domain/transitions";
import type { JobStatus } from "@/lib/providers/types";
import { actorColumns, type WorkerActor } from "./actor";
import { type ClaimProof, claimIsHeld, currentCaseCtes, heldClaimCtes } from "./lease-guard";
import { snapshotOf } from "./transition-case";

export const SETTLE_NOTE = "settled on provider completion";
export const SETTLE_ENTRY_NOTE = "provider reported completion";
export const SETTLE_EVIDENCE = "charge is certain: the provider completed the job";

/** Output URLs are kept without their query strings: signed parameters are credentials. */
export function observedOutputs(status: JobStatus) {
  if (status.kind !== "completed") return undefined;
  return sanitise(
    status.outputs.map((o, index) => ({ index, url: o.url, contentType: o.contentType, size: o.size })),
  ) as Prisma.InputJsonValue;
}

type Seen = {
  caseId: string;
  stage: Stage;
  state: CaseState;
  providerJobId: string | null;
  version: number;
  episode: number;
  holdRef: string | null;
  holdId: string | null;
  holdMicros: bigint | null;
  holdStatus: string | null;
  held: boolean;
};

/**
 * recordObservation in two statements instead of a dozen: read the case and its hold, let the pure
 * functions decide (the stage move, the settlement plan), then write everything in one statement
 * that re-checks the claim under a row lock and locks the case only if it is still the version
 * that was read. The hold is settled only if it is still held for the amount that was planned.
 * `fall_back` (the decision refuses, or the case changed twice) leaves it to the locked path.
 */
export async function recordInOneStatement(
  db: Db,
  worker: WorkerActor,
  proof: ClaimProof,
  status: JobStatus,
): Promise<boolean | "fall_back"> {
  const held = { ...proof, workerId: worker.workerId };
  for (let attempt = 0; attempt < 2; attempt++) {
    const [seen] = await db.$queryRaw<Seen[]>`
      SELECT c.id AS "caseId", c.stage::text AS stage, c.state::text AS state, c.provider_job_id AS "providerJobId",
             c.version, c.episode, h.id AS "holdRef", h.hold_id AS "holdId", h.amount_micros AS "holdMicros",
             h.status::text AS "holdStatus", ${claimIsHeld(held)} AS held
      FROM recovery_actions a JOIN cases c ON c.id = a.case_id LEFT JOIN holds h ON h.attempt_ref = c.attempt_ref
      WHERE a.id = ${held.actionId}::uuid`;
    if (!seen?.held) return false;
    const written = await write(db, worker, held, status, seen);
    if (written !== "stale") return written;
  }
  return "fall_back";
}

async function write(
  db: Db,
  worker: WorkerActor,
  held: ClaimProof,
  status: JobStatus,
  seen: Seen,
): Promise<boolean | "stale" | "fall_back"> {
  const observation = {
    kind: status.kind,
    providerStatus: "providerStatus" in status ? status.providerStatus : null,
    // No outputs is SQL NULL, as the locked path leaves it, not a JSON null.
    outputs: status.kind === "completed" ? JSON.stringify(observedOutputs(status)) : null,
    detail: JSON.stringify(sanitise(status)),
  };
  const locked = heldClaimCtes(held);
  if (status.kind !== "completed" || seen.stage !== "polling") {
    // Only evidence and a counter: nothing is decided, so nothing needs the case as it was read.
    const rows = await db.$queryRaw<{ held: bigint }[]>`
      WITH ${locked}, observed AS (
        INSERT INTO provider_observations (case_id, attempt_ref, action_id, fencing_token, kind, provider_status, outputs, detail)
        SELECT c.id, c.attempt_ref, ${held.actionId}::uuid, ${BigInt(held.fencingToken)}, ${observation.kind},
               ${observation.providerStatus}, ${observation.outputs}::jsonb, ${observation.detail}::jsonb
        FROM held JOIN cases c ON c.id = held.case_id
      ), counted AS (
        UPDATE cases c SET poll_attempts = c.poll_attempts + 1 FROM held WHERE c.id = held.case_id
      )
      SELECT count(*) AS held FROM held`;
    return Number(rows[0]?.held) === 1;
  }
  const before = snapshotOf(seen);
  const move = decide(before, {
    type: "move_stage",
    stage: "delivery",
    evidence: `provider reports ${status.providerStatus}`,
  });
  if (!move.ok || !move.changesState) return "fall_back";
  const settling = seen.holdStatus === "held" && seen.holdMicros !== null;
  const plan = settling
    ? planSettle({ amountMicros: Number(seen.holdMicros), status: "held" }, Number(seen.holdMicros))
    : null;
  if (plan && !plan.ok) return "fall_back";
  const entries = plan?.value.entries ?? [];
  const { actorId, actorLabel } = actorColumns(worker);
  const audits = [
    ...(settling
      ? [
          {
            kind: "hold_settled",
            before: { holdId: seen.holdId, status: "held", amountMicros: Number(seen.holdMicros) },
            after: { status: "settled", entries: entries.map((e) => ({ ...e })) },
            evidence: { text: SETTLE_EVIDENCE },
          },
        ]
      : []),
    {
      kind: move.auditKind,
      before: { ...before, version: seen.version },
      after: { ...move.next, version: seen.version + 1 },
      evidence: {
        text: `provider reports ${status.providerStatus}`,
        outputs: status.outputs.length,
        actionId: held.actionId,
      },
    },
  ].map((audit, order) => ({ ...audit, order }));
  const rows = await db.$queryRaw<{ held: bigint; moved: bigint }[]>`
    WITH ${locked}, ${currentCaseCtes(seen)}, settled AS (
      UPDATE holds h SET status = 'settled', settled_micros = h.amount_micros, resolved_at = now(), decision_note = ${SETTLE_NOTE}
      FROM kase WHERE ${settling} AND h.id = ${seen.holdRef}::uuid AND h.attempt_ref = kase.attempt_ref
        AND h.status = 'held' AND h.amount_micros = ${seen.holdMicros ?? 0n}
      RETURNING h.id, h.amount_micros
    ), entries AS (
      INSERT INTO ledger_entries (hold_ref, kind, amount_micros, flagged, note, actor_label)
      SELECT settled.id, e.kind::"LedgerEntryKind", e."amountMicros", e.flagged, ${SETTLE_ENTRY_NOTE}, ${actorLabel}
      FROM settled CROSS JOIN jsonb_to_recordset(${JSON.stringify(entries)}::jsonb)
        AS e(kind text, "amountMicros" bigint, flagged boolean)
    ), moved AS (
      UPDATE cases c
      SET poll_attempts = c.poll_attempts + 1,
          held_micros = c.held_micros - coalesce((SELECT amount_micros FROM settled), 0),
          stage = ${move.next.stage}::"Stage", state = ${move.next.state}::"CaseState",
          provider_job_id = ${move.next.providerJobId}, version = c.version + 1, updated_at = now()
      FROM kase WHERE c.id = kase.id
      RETURNING c.id
    ), observed AS (
      INSERT INTO provider_observations (case_id, attempt_ref, action_id, fencing_token, kind, provider_status, outputs, detail)
      SELECT kase.id, kase.attempt_ref, ${held.actionId}::uuid, ${BigInt(held.fencingToken)}, ${observation.kind},
             ${observation.providerStatus}, ${observation.outputs}::jsonb, ${observation.detail}::jsonb
      FROM kase
    ), audited AS (
      INSERT INTO audit_events (case_id, episode, actor_kind, actor_id, actor_label, kind, before, after, evidence)
      SELECT moved.id, ${seen.episode}, 'worker', ${actorId}, ${actorLabel}, a.kind, a.before, a.after, a.evidence
      FROM moved CROSS JOIN jsonb_to_recordset(${JSON.stringify(audits)}::jsonb)
        AS a("order" int, kind text, before jsonb, after jsonb, evidence jsonb)
      WHERE a.kind <> 'hold_settled' OR EXISTS (SELECT 1 FROM settled)
      ORDER BY a."order"
    )
    SELECT (SELECT count(*) FROM held) AS held, (SELECT count(*) FROM moved) AS moved`;
  const row = rows[0];
  if (Number(row?.moved) === 1) return true;
  return Number(row?.held) === 1 ? "stale" : false;
}
