import type { ChaosFigures } from "./figures";

export type ChaosRun = {
  seed: number;
  actions: number;
  workers: number;
  plannedKills: { worker: number; server: number };
  done: { worker: number; server: number; postgres: number };
  claimedAtServerKills: number;
  unexpectedExits: number;
  workSeconds: number;
  totalSeconds: number;
  finishedAfterRestart: number;
  providerRequests: Record<string, number>;
};

/** Prints every figure with its verdict; true only when all of them are right. */
export function reportChaos(f: ChaosFigures, run: ChaosRun): boolean {
  const k = run.done;
  const total = run.actions;
  const must = (label: string, value: number, ok: boolean) => {
    console.log(`${ok ? "  ok  " : "  FAIL"} ${label.padEnd(58)} ${value}`);
    return ok;
  };
  console.log("");
  console.log(
    `seed ${run.seed}, ${total} actions, ${run.workers} workers, work ${run.workSeconds.toFixed(0)} s, total ${run.totalSeconds.toFixed(0)} s`,
  );
  console.log(`provider requests: ${JSON.stringify(run.providerRequests)}`);
  for (const [name, t] of Object.entries(f.byScenario)) {
    console.log(
      `  ${name.padEnd(20)} ${String(t.seeded).padStart(6)} seeded, ${t.completed} completed, ${t.reparked} re-parked`,
    );
  }
  const checks = [
    must("workers killed (SIGKILL)", k.worker, k.worker > 0 || run.plannedKills.worker === 0),
    must("app server killed (SIGKILL)", k.server, k.server > 0 || run.plannedKills.server === 0),
    must("PostgreSQL restarts", k.postgres, k.postgres === 1),
    must("actions finished after the PostgreSQL restart", run.finishedAfterRestart, run.finishedAfterRestart > 0),
    must("processes that exited without being killed", run.unexpectedExits, run.unexpectedExits === 0),
    must("actions seeded (ready)", f.actionsSeeded, f.actionsSeeded === total),
    must("executed to completion (delivered, case resolved)", f.executedToCompletion, true),
    must("safely re-parked (action unresolved, case parked)", f.safelyReparked, true),
    must(
      "completed + re-parked = seeded",
      f.executedToCompletion + f.safelyReparked,
      f.executedToCompletion + f.safelyReparked === total,
    ),
    must("actions left ready or claimed", f.leftReadyOrClaimed, f.leftReadyOrClaimed === 0),
    must("actions that did not end as planned", f.endedNotAsPlanned, f.endedNotAsPlanned === 0),
    must("lost cases", f.lostCases, f.lostCases === 0),
    must("claims (fencing tokens issued)", f.claims, f.claims >= total),
    must("actions left claimed at the server kills (summed over kills)", run.claimedAtServerKills, true),
    must("expired leases rescued", f.leasesRescued, f.leasesRescued > 0 || run.claimedAtServerKills === 0),
    must("claims not accounted for (audit vs action row)", f.claimsUnaccounted, f.claimsUnaccounted === 0),
    must("double executions (audit log, assets, observations)", f.doubleExecutionsAudit, f.doubleExecutionsAudit === 0),
    must("double executions (provider request log)", f.doubleExecutionsProvider, f.doubleExecutionsProvider === 0),
    must("provider calls after the action had finished", f.providerCallsAfterFinish, f.providerCallsAfterFinish === 0),
    must("delivered without a download at the provider", f.deliveredWithoutDownload, f.deliveredWithoutDownload === 0),
    must("holds not settled/held as planned", f.holdsNotAsPlanned, f.holdsNotAsPlanned === 0),
    must("provider create calls", f.providerCreateCalls, f.providerCreateCalls === 0),
  ];
  const ok = checks.every(Boolean);
  console.log(ok ? "\nPASS" : "\nFAIL");
  return ok;
}
