import type { Db, Prisma } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { CaseCommand } from "@/lib/domain/case-commands";
import type { Principal } from "@/lib/domain/principal";
import { decide } from "@/lib/domain/transitions";
import { actorColumns, requireWorker, type WorkerActor } from "./actor";
import { type ClaimProof, casIs, type HeldCase, heldClaimCtes, lockHeldClaim, readHeldCase } from "./lease-guard";
import { loadCase, snapshotOf, transitionCase } from "./transition-case";

export type FinishResult =
  | { kind: "resolved" }
  | { kind: "unresolved"; evidence: string }
  | { kind: "moved"; stage: "delivery" | "generation_failed"; evidence: string }
  | { kind: "rescheduled"; evidence: string; nextCheckAt: Date }
  | { kind: "released" };

export type FinishOutcome = "resolved" | "parked" | "rescheduled" | "continued" | "released" | "lost_claim";

const COMMAND: { [K in FinishResult["kind"]]: (r: Extract<FinishResult, { kind: K }>) => CaseCommand } = {
  resolved: () => ({ type: "finish_resolved" }),
  unresolved: (r) => ({ type: "finish_unresolved", evidence: r.evidence }),
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
      return { status: "unresolved", outcome: "unresolved", finished: true };
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
 * The usual case is one guarded statement (two when the claim's view of the case is out of date);
 * anything unusual (a race, an illegal step, extra case fields) takes the locked transaction.
 */
export async function finishAction(
  db: Db,
  actor: Principal,
  proof: ClaimProof,
  result: FinishResult,
  extra?: Prisma.CaseUncheckedUpdateManyInput,
): Promise<FinishOutcome> {
  const worker = requireWorker(actor);
  const held = { ...proof, workerId: worker.workerId };
  if (!extra) {
    const fast = await finishWithoutTransaction(db, worker, held, result);
    if (fast !== "fall_back") return fast;
  }
  return inTransaction(db, async (tx) => {
    const claim = await lockHeldClaim(tx, held);
    if (!claim) return "lost_claim";
    const update = actionEnd(result);
    if (update) {
      const { outcome, finished, readyAt, status } = update;
      await tx.recoveryAction.update({
        where: { id: proof.actionId },
        data: {
          status,
          leaseOwner: null,
          leaseUntil: null,
          ...(outcome ? { outcome } : {}),
          ...(finished ? { finishedAt: new Date() } : {}),
          ...(readyAt ? { readyAt } : {}),
        },
      });
    }
    const row = await loadCase(tx, claim.caseId);
    const { after } = await transitionCase(tx, {
      row,
      actor: worker,
      command: commandFor(result),
      evidence: { ...result, actionId: proof.actionId, fencingToken: proof.fencingToken },
      extra: { ...(result.kind === "resolved" ? { outcome: "recovered" } : {}), ...extra },
    });
    return outcomeOf(result, after.state);
  });
}

/** First against the case as the claim left it, then as it is now; `fall_back` when neither applied. */
async function finishWithoutTransaction(
  db: Db,
  worker: WorkerActor,
  held: ClaimProof,
  result: FinishResult,
): Promise<FinishOutcome | "fall_back"> {
  if (held.expectedCase) {
    const first = await finishInOneStatement(db, worker, held, held.expectedCase, result);
    if (first !== "stale" && first !== "refused") return first;
  }
  const seen = await readHeldCase(db, held);
  if (!seen) return "lost_claim";
  const second = await finishInOneStatement(db, worker, held, seen, result);
  return second === "stale" || second === "refused" ? "fall_back" : second;
}

/**
 * The pure decision on the case as seen, applied by one statement that re-checks the claim under
 * a row lock and compares-and-sets the case on (state, version): the action update and the audit
 * row depend on that compare-and-set, so either all of it is written or none. `stale` (the case
 * changed since it was seen) and `refused` (the decision says no, or changes nothing) write
 * nothing and leave the answer to fresh rows.
 */
async function finishInOneStatement(
  db: Db,
  worker: WorkerActor,
  held: ClaimProof,
  seen: HeldCase,
  result: FinishResult,
): Promise<FinishOutcome | "stale" | "refused"> {
  const before = snapshotOf(seen);
  const decision = decide(before, commandFor(result));
  if (!decision.ok || !decision.changesState) return "refused";
  const next = decision.next;
  const end = actionEnd(result);
  const { actorId, actorLabel } = actorColumns(worker);
  const caseOutcome = result.kind === "resolved" ? "recovered" : null;
  const evidence = { ...result, actionId: held.actionId, fencingToken: held.fencingToken };
  const rows = await db.$queryRaw<{ held: bigint; applied: bigint }[]>`
    WITH ${heldClaimCtes(held)}, moved AS (
      UPDATE cases c
      SET stage = ${next.stage}::"Stage", state = ${next.state}::"CaseState", provider_job_id = ${next.providerJobId},
          version = c.version + 1, updated_at = now(),
          resolved_at = CASE WHEN ${next.state === "resolved" && before.state !== "resolved"} THEN now() ELSE c.resolved_at END,
          outcome = coalesce(${caseOutcome}, c.outcome)
      FROM held WHERE c.id = held.case_id AND c.id = ${seen.caseId}::uuid AND ${casIs(seen)}
      RETURNING c.id
    ), ended AS (
      UPDATE recovery_actions a
      SET status = ${end?.status ?? "claimed"}::"ActionStatus", outcome = coalesce(${end?.outcome ?? null}, a.outcome),
          lease_owner = NULL, lease_until = NULL,
          finished_at = CASE WHEN ${end?.finished ?? false} THEN now() ELSE a.finished_at END,
          ready_at = coalesce(${end?.readyAt ?? null}::timestamptz, a.ready_at)
      FROM moved WHERE a.id = ${held.actionId}::uuid AND ${end !== null}
    ), audited AS (
      INSERT INTO audit_events (case_id, episode, actor_kind, actor_id, actor_label, kind, before, after, evidence)
      SELECT moved.id, ${seen.episode}, 'worker', ${actorId}, ${actorLabel}, ${decision.auditKind},
             ${JSON.stringify({ ...before, version: seen.version })}::jsonb,
             ${JSON.stringify({ ...next, version: seen.version + 1 })}::jsonb,
             ${JSON.stringify(evidence)}::jsonb
      FROM moved
    )
    SELECT (SELECT count(*) FROM held) AS held, (SELECT count(*) FROM moved) AS applied`;
  const row = rows[0];
  if (Number(row?.applied) === 1) return outcomeOf(result, next.state);
  return Number(row?.held) === 1 ? "stale" : "lost_claim";
}
