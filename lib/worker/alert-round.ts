import { evaluateAlerts } from "@/lib/services/alert/evaluate-alerts";
import { dispatchNotifications } from "./dispatch-notifications";
import { workerLog } from "./log";
import type { WorkerContext } from "./worker-context";

const DEFAULT_CONSOLE_URL = "http://localhost:3000";

/**
 * Evaluates the alert rules; a failure is logged and tried again on the next round, never allowed
 * to cost the tick its recovery work.
 */
export async function evaluateAlertsSafely(ctx: WorkerContext, by: string, now?: Date): Promise<void> {
  try {
    const round = await evaluateAlerts(ctx.db, { consoleUrl: ctx.consoleUrl ?? DEFAULT_CONSOLE_URL, now });
    if (round && round.fired + round.renotified + round.resolved > 0) workerLog({ step: "alerts", by, ...round });
  } catch (error) {
    workerLog({ step: "alerts_error", by, error: error instanceof Error ? error.message : String(error) }, "error");
  }
}

/** How often the console's process looks at the rules itself. */
export const ALERT_WATCH_INTERVAL_MS = 60_000;

/**
 * The console's own round, independent of any worker: without it, no worker ticking would also
 * mean nobody noticing, and nobody sending the worker-silence alert. It evaluates the rules (the
 * same lock as the workers', so at most one round runs at a time) and sends alert messages only;
 * producers' notifications stay with the workers.
 */
export async function watchAlerts(ctx: WorkerContext): Promise<void> {
  await evaluateAlertsSafely(ctx, "console");
  try {
    await dispatchNotifications(ctx, Date.now() + 20_000, 20, { alertsOnly: true });
  } catch (error) {
    workerLog(
      { step: "alerts_dispatch_error", error: error instanceof Error ? error.message : String(error) },
      "error",
    );
  }
}
