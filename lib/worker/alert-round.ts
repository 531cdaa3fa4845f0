import { ALERT_ROUND_INTERVAL_MS } from "@/lib/domain/alert-episodes";
import { evaluateAlerts } from "@/lib/services/alert/evaluate-alerts";
import { dispatchNotifications } from "./dispatch-notifications";
import { workerLog } from "./log";
import type { WorkerContext } from "./worker-context";

const DEFAULT_CONSOLE_URL = "http://localhost:3000";

/**
 * Evaluates the alert rules when the round is due (alert-schedule.ts); a failure, of one rule or of
 * the round, is logged and tried again on the next round, never allowed to cost the tick its
 * recovery work.
 */
export async function evaluateAlertsSafely(
  ctx: WorkerContext,
  by: string,
  options: { overdueMs?: number } = {},
): Promise<void> {
  try {
    const round = await evaluateAlerts(ctx.db, { consoleUrl: ctx.consoleUrl ?? DEFAULT_CONSOLE_URL, ...options });
    if (!round) return;
    const { failed, ...counts } = round;
    for (const failure of failed) workerLog({ step: "alert_rule_error", by, ...failure }, "error");
    if (counts.fired + counts.renotified + counts.resolved > 0) workerLog({ step: "alerts", by, ...counts });
  } catch (error) {
    workerLog({ step: "alerts_error", by, error: error instanceof Error ? error.message : String(error) }, "error");
  }
}

/** How often the console's process looks at the alert schedule itself. */
export const ALERT_WATCH_INTERVAL_MS = ALERT_ROUND_INTERVAL_MS;

/**
 * The console's own round, independent of any worker: without it, no worker ticking would also
 * mean nobody noticing, and nobody sending the worker-silence alert. It takes only a round the
 * workers left untaken for a whole interval (the same schedule row, so one round at a time), which
 * leaves a round made due on purpose to the next tick, and comes to one a minute or so with no
 * worker at all; it sends alert messages only, producers' notifications stay with the workers.
 */
export async function watchAlerts(ctx: WorkerContext): Promise<void> {
  await evaluateAlertsSafely(ctx, "console", { overdueMs: ALERT_ROUND_INTERVAL_MS });
  try {
    await dispatchNotifications(ctx, Date.now() + 20_000, 20, { alertsOnly: true });
  } catch (error) {
    workerLog(
      { step: "alerts_dispatch_error", error: error instanceof Error ? error.message : String(error) },
      "error",
    );
  }
}
