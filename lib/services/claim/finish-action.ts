import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import type { BoundReached } from "@/lib/domain/action-bound";
import type { CaseCommand } from "@/lib/domain/case-commands";
import type { Principal } from "@/lib/domain/principal";
import { sanitise } from "@/lib/domain/sanitise";
import { decide } from "@/lib/domain/transitions";
import { requireWorker, type WorkerActor } from "../access/actor";
import { caseChange, claimWriteEnded, snapshotOf } from "../case/writer/change";
import type { ActionCheck } from "./earlier-checks";
import { type ClaimProof, type HeldCase, heldClaimCtes, readHeldCase } from "./lease-guard";
import { refuse, writeUnderClaim } from "./write-under-claim";

export type FinishResult =
  | { kind: "resolved" }
  /** `bound` and `checks` when the action stopped at its bound (DESIGN rule 19), kept on the audit row. */
  | { kind: "unresolved"; evidence: string; bound?: BoundReached; checks?: ActionCheck[] }
  | { kind: "outputs_unavailable"; evidence: string }
  | { kind: "moved"; stage: "delivery" | "generation_failed"; evidence: string }
  | { kind: "rescheduled"; evidence: string; nextCheckAt: Date }
  | { kind: "released" };

export type FinishOutcome = "resolved" | "parked" | "rescheduled" | "continued" | "released" | "lost_claim";

const COMMAND: { [K in FinishResult["kind"]]: (r: Extract<FinishResult, { kind: K }>) => CaseCommand } = {
  resolved: () => ({ type: "finish_resolved" }),
  unresolved: (r) => ({ type: "finish_unresolved", evidence: r.evidence }),
  outputs_unavailable: (r) => ({ type: "mark_outputs_unavailable", evidence: r.evidence }),
  moved: (r) => ({ type: "move_stage", stage: r.stage, evidence: r.evidence }),
  rescheduled: (r) => ({ type: "reschedule", evidence: r.evidence }),
  released: () => ({ type: "release_claim" }),
};
const commandFor = (result: FinishResult) => (COMMAND[result.kind] as (r: FinishResult) => CaseCommand)(result);

type ActionEnd = { status: "succeeded" | "unresolved" | "ready"; outcome?: string; finished: boolean; readyAt?: Date };

/** How the action row ends; null when it stays claimed (a completion goes on to delivery). */
function actionEnd(result: FinishResult): ActionEnd | null {
  switch (result.kind) {
    case "resolved":
      return { status: "succeeded", outcome: "resolved", finished: true };
    case "unresolved":
      return { status: "unresolved", outcome: result.bound ? "bound_reached" : "unresolved", finished: true };
    case "outputs_unavailable":
      return { status: "unresolved", outcome: "outputs_unavailable", finished: true };
    case "moved":
      return result.stage === "delivery"
        ? null
        : { status: "unresolved", outcome: "generation_failed", finished: true };
    case "rescheduled":
      return { status: "ready", finished: false, readyAt: result.nextCheckAt };
    case "released":
      return { status: "ready", finished: false };
  }
}

function outcomeOf(result: FinishResult, nextState: string): FinishOutcome {
  if (result.kind === "rescheduled") return "rescheduled";
  if (result.kind === "released") return "released";
  if (nextState === "resolved") return "resolved";
  return nextState === "claimed" ? "continued" : "parked";
}

/**
 * Ends (or hands back) a claimed action. The claim must still be held by this worker with this
 * token and a live lease; otherwise the answer is `lost_claim` and nothing at all is written.
 * The case is taken as the claim left it when the proof carries that (no read), else read; when
 * that view turns out to be out of date, it is read again under the claim's row locks.
 */
export async function finishAction(
  db: Db,
  actor: Principal,
  proof: ClaimProof,
  result: FinishResult,
): Promise<FinishOutcome> {
  const worker = requireWorker(actor);
  const held = { ...proof, workerId: worker.workerId };
  return writeUnderClaim(db, held, async (db, locked) => {
    const seen = !locked && held.expectedCase ? held.expectedCase : await readHeldCase(db, held);
    if (!seen) return "lost_claim";
    return finishInOneStatement(db, worker, held, seen, result, locked);
  });
}

/**
 * The pure decision on the case as seen, applied by one statement that re-checks the claim under
 * a row lock and compares-and-sets the case on (state, version): the action update and the audit
 * row depend on that compare-and-set, so either all of it is written or none. `stale` (the case
 * changed since it was seen, or the decision refused a view that may be old) writes nothing.
 */
async function finishInOneStatement(
  db: Db,
  worker: WorkerActor,
  held: ClaimProof,
  seen: HeldCase,
  result: FinishResult,
  locked: boolean,
): Promise<FinishOutcome | "stale"> {
  const decision = decide(snapshotOf(seen), commandFor(result));
  if (!decision.ok) return refuse(decision.error, locked);
  const next = decision.next;
  const end = actionEnd(result);
  const caseOutcome = result.kind === "resolved" ? "recovered" : null;
  const outputsGone = result.kind === "outputs_unavailable";
  const evidence = { ...result, actionId: held.actionId, fencingToken: held.fencingToken };
  const rows = await sqlRows<{ held: bigint; moved: bigint }>(
    db,
    Prisma.sql`
    WITH ${heldClaimCtes(held)}, ${caseChange({
      decision,
      seen,
      actor: worker,
      evidence,
      // An action that ran to an end is the case's last attempt, which the queue sorts by (decision 069).
      set: Prisma.sql`outcome = coalesce(${caseOutcome}, c.outcome),
        last_attempt_at = CASE WHEN ${end?.finished ?? false} THEN now() ELSE c.last_attempt_at END`,
      from: Prisma.sql`held`,
      where: Prisma.sql`c.id = held.case_id`,
    })}, gone AS (
      -- The observation a reviewer reads on the timeline, written with the decision it caused.
      INSERT INTO provider_observations (case_id, attempt_ref, action_id, fencing_token, kind, detail)
      SELECT moved.id, moved.attempt_ref, ${held.actionId}::uuid, ${BigInt(held.fencingToken)}, 'outputs_unavailable',
             ${JSON.stringify(sanitise({ evidence: outputsGone ? result.evidence : null }))}::jsonb
      FROM moved WHERE ${outputsGone}
    ), ended AS (
      UPDATE recovery_actions a
      SET status = ${end?.status ?? "claimed"}::"ActionStatus", outcome = coalesce(${end?.outcome ?? null}, a.outcome),
          lease_owner = NULL, lease_until = NULL,
          finished_at = CASE WHEN ${end?.finished ?? false} THEN now() ELSE a.finished_at END,
          ready_at = coalesce(${end?.readyAt ?? null}::timestamptz, a.ready_at)
      FROM moved WHERE a.id = ${held.actionId}::uuid AND ${end !== null}
    ), unreserved AS (
      -- An ended claim can never publish what it reserved; its keys are spent, its rows not kept.
      DELETE FROM assets r USING moved
      WHERE r.action_id = ${held.actionId}::uuid AND r.fencing_token = ${BigInt(held.fencingToken)}
        AND r.published_at IS NULL AND ${end !== null}
    )
    SELECT (SELECT count(*) FROM held) AS held, (SELECT count(*) FROM moved) AS moved`,
  );
  const ended = claimWriteEnded(commandFor(result).type, rows[0]);
  return ended === "moved" ? outcomeOf(result, next.state) : ended;
}
