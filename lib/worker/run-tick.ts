import type { Principal } from "@/lib/domain/principal";
import { recordWorkerHeartbeat } from "@/lib/services/alert/record-worker-heartbeat";
import { escalateOverdueCases } from "@/lib/services/case/escalate-overdue-cases";
import { suggestReconciliations } from "@/lib/services/case/suggest-reconciliations";
import { watchReplacedOriginals } from "@/lib/services/case/watch-replaced-originals";
import { type ClaimedAction, claimActions, proofOf } from "@/lib/services/claim/claim-actions";
import { finishAction } from "@/lib/services/claim/finish-action";
import { DEFAULT_POISON_CLAIMS, parkPoisonActions } from "@/lib/services/claim/park-poison-actions";
import { recordClaimFailure } from "@/lib/services/claim/record-claim-failure";
import { rescueExpiredLeases } from "@/lib/services/claim/rescue-expired-leases";
import { parkOverduePermits } from "@/lib/services/permit/park-overdue-permits";
import { matchUnmatchedWebhooks } from "@/lib/services/provider-webhook/receive-webhook";
import { suggestFromWebhooks } from "@/lib/services/provider-webhook/suggest-from-webhooks";
import { runRetentionIfDue } from "@/lib/services/retention/run-retention";
import { applyWaitingUsage } from "@/lib/services/usage/apply-waiting-usage";
import { sweepProviderJobsIfDue } from "@/lib/services/usage/sweep-provider-jobs";
import { evaluateAlertsSafely } from "./alert-round";
import { dispatchNotifications } from "./dispatch-notifications";
import { executeAction, type TickOutcome } from "./execute-action";
import { workerLog } from "./log";
import { copyToVault } from "./vault-round";
import type { WorkerContext } from "./worker-context";

export type TickResult = { actionId: string; caseId: string; kind: string; outcome: TickOutcome; fencingToken: number };

/** Below this much time left, an action is handed back rather than started. */
const MIN_TIME_FOR_AN_ACTION_MS = 2_000;
/** Reconciliation searches run last, only with this much time left, and for a few cases per tick. */
const MIN_TIME_FOR_SUGGESTIONS_MS = 3_000;
const SUGGESTION_CASES_PER_TICK = 5;

/**
 * One bounded round of work, sized to fit a cron-invoked HTTP request: rescue expired leases,
 * note this worker's heartbeat, escalate a batch of cases past their deadline, park send permits whose deadline passed with no
 * report, apply kept provider webhooks whose job is now known (and suggest the unknown ones' jobs to
 * uncertain submissions), apply usage lines whose case's outcome is now known (decision 077), park actions that keep failing, claim up to
 * `maxTasks`, execute them a few at a time until the budget runs out (handing back what was not
 * started), copy due outputs into the vault (decision 075), then evaluate the alert rules if their round is due (every 30 s across all workers) and send due
 * notifications and alerts with whatever time is left, run the hourly
 * retention (decision 033) if it is due and no other worker took it, and finally, if a few seconds
 * remain, search providers for reconciliation suggestions and for the original jobs of recent
 * replacements (suggestions and flags only), and sweep their job lists once a day (decision 074).
 */
export async function runTick(
  ctx: WorkerContext,
  actor: Principal & { kind: "worker" },
  options: { maxTasks: number },
): Promise<{ claimed: number; rescued: number; escalated: number; results: TickResult[]; notifications: number }> {
  const deadline = Date.now() + ctx.budgetMs;
  await recordWorkerHeartbeat(ctx.db, actor.workerId);
  const rescued = await rescueExpiredLeases(ctx.db, actor);
  const escalated = await escalateOverdueCases(ctx.db, actor);
  if (escalated > 0) workerLog({ step: "escalated", workerId: actor.workerId, escalated });
  const overduePermits = await parkOverduePermits(ctx.db, actor);
  if (overduePermits > 0) workerLog({ step: "permits_parked", workerId: actor.workerId, parked: overduePermits });
  const matchedWebhooks = await matchUnmatchedWebhooks(ctx.db, actor);
  if (matchedWebhooks > 0) workerLog({ step: "webhooks_matched", workerId: actor.workerId, matched: matchedWebhooks });
  const usage = await applyWaitingUsage(ctx.db, actor);
  if (usage > 0) workerLog({ step: "usage_applied", workerId: actor.workerId, applied: usage });
  const fromWebhooks = await suggestFromWebhooks(ctx.db, actor);
  if (fromWebhooks > 0)
    workerLog({ step: "suggested_from_webhooks", workerId: actor.workerId, suggested: fromWebhooks });
  const poisonClaims = ctx.poisonClaims ?? DEFAULT_POISON_CLAIMS;
  const poisoned = await parkPoisonActions(ctx.db, actor, { threshold: poisonClaims });
  if (poisoned > 0) workerLog({ step: "poison_parked", workerId: actor.workerId, parked: poisoned });
  const claimed = await claimActions(ctx.db, actor, {
    max: options.maxTasks,
    leaseSeconds: ctx.leaseSeconds,
    poisonClaims,
  });
  if (claimed.length > 0 || rescued > 0)
    workerLog({ step: "claimed", workerId: actor.workerId, claimed: claimed.length, rescued });
  const results: TickResult[] = [];
  const queue = [...claimed];
  const runNext = async (): Promise<void> => {
    for (let item = queue.shift(); item; item = queue.shift()) results.push(await runOne(ctx, actor, item, deadline));
  };
  await Promise.all(Array.from({ length: Math.max(1, ctx.concurrency) }, runNext));
  await vaultWithinBudget(ctx, actor, deadline);
  await evaluateAlertsSafely(ctx, actor.workerId);
  const notifications = await dispatchNotifications(ctx, deadline);
  await retainWithinBudget(ctx, actor, deadline);
  await suggestWithinBudget(ctx, actor, deadline);
  return { claimed: claimed.length, rescued, escalated, results, notifications };
}

/**
 * At most one retention run at once across all workers, hourly; a run cut short makes the next one
 * due at once (the next tick goes on), a failed one leaves the rest to the next hour's (it is
 * idempotent), and both are logged, never silent.
 */
async function retainWithinBudget(ctx: WorkerContext, actor: Principal & { kind: "worker" }, deadline: number) {
  if (deadline - Date.now() <= MIN_TIME_FOR_SUGGESTIONS_MS) return;
  try {
    const run = await runRetentionIfDue(ctx.db, ctx.storage, actor, { deadline });
    if (run)
      workerLog({ step: "retention", workerId: actor.workerId, ...run }, run.fileErrors.length ? "error" : "info");
  } catch (error) {
    workerLog({ step: "retention_error", error: error instanceof Error ? error.message : String(error) }, "error");
  }
}

/** Copies due for the output vault (decision 075); a failure is logged and the copies' leases bring them back. */
async function vaultWithinBudget(ctx: WorkerContext, actor: Principal & { kind: "worker" }, deadline: number) {
  if (deadline - Date.now() <= MIN_TIME_FOR_AN_ACTION_MS) return;
  try {
    const done = await copyToVault(ctx, deadline);
    if (done.copied + done.missed > 0) workerLog({ step: "vault", workerId: actor.workerId, ...done });
  } catch (error) {
    workerLog({ step: "vault_error", error: error instanceof Error ? error.message : String(error) }, "error");
  }
}

/** Best effort: a failed or cut-short search is logged and tried again on a later tick. */
async function suggestWithinBudget(ctx: WorkerContext, actor: Principal & { kind: "worker" }, deadline: number) {
  if (deadline - Date.now() <= MIN_TIME_FOR_SUGGESTIONS_MS) return;
  const signal = AbortSignal.timeout(Math.max(1, deadline - Date.now()));
  try {
    const found = await suggestReconciliations(ctx, actor, { max: SUGGESTION_CASES_PER_TICK, signal });
    if (found.searched > 0) workerLog({ step: "suggested", workerId: actor.workerId, ...found });
    const watched = await watchReplacedOriginals(ctx, actor, { max: SUGGESTION_CASES_PER_TICK, signal });
    if (watched.looked > 0) workerLog({ step: "watched_replaced", workerId: actor.workerId, ...watched });
    // Decision 074: once a day, the providers' own job lists, for jobs no operation owns.
    const swept = await sweepProviderJobsIfDue(ctx, actor, { signal });
    if (swept) workerLog({ step: "jobs_swept", workerId: actor.workerId, providers: swept });
  } catch (error) {
    workerLog({ step: "suggest_error", error: error instanceof Error ? error.message : String(error) }, "error");
  }
}

async function runOne(
  ctx: WorkerContext,
  actor: Principal & { kind: "worker" },
  item: ClaimedAction,
  deadline: number,
): Promise<TickResult> {
  const base = { actionId: item.actionId, caseId: item.caseId, kind: item.kind, fencingToken: item.fencingToken };
  const proof = proofOf(item, actor.workerId);
  if (deadline - Date.now() < MIN_TIME_FOR_AN_ACTION_MS) {
    const released = await finishAction(ctx.db, actor, proof, { kind: "released" });
    workerLog({ step: "released", ...base, outcome: released });
    return { ...base, outcome: released === "lost_claim" ? "lost_claim" : "rescheduled" };
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), Math.max(0, deadline - Date.now()));
  try {
    const outcome = await executeAction(ctx, actor, item, controller.signal);
    workerLog({ step: "executed", ...base, outcome });
    return { ...base, outcome };
  } catch (error) {
    // The lease is left to expire (or handed back if time ran out): a rescue makes it ready again.
    // The failure is noted first, so an action that fails every time is parked, not retried forever.
    await recordClaimFailure(ctx.db, actor, proof, error).catch(() => false);
    if (controller.signal.aborted) await finishAction(ctx.db, actor, proof, { kind: "released" }).catch(() => {});
    workerLog({ step: "error", ...base, error: error instanceof Error ? error.message : String(error) }, "error");
    return { ...base, outcome: "error" };
  } finally {
    clearTimeout(timer);
  }
}
