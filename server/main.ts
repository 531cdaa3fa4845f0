import { createServer } from "node:http";
import next from "next";
import { env } from "@/lib/env";
import { logger } from "@/lib/log/logger";
import { applyHttpTimeouts } from "./http-timeouts";
import { refuseUnsafeStart } from "./production-check";

/**
 * The app's HTTP entry: Next.js for every page and route, except the bearer-token routes programs
 * hit in bursts, which get the same handlers without Next's router in front: the router cost more
 * CPU per request than a registration's own work (docs/decisions/009-direct-api-routes.md; the
 * figures are in docs/performance.md §4).
 */
const dev = process.argv.includes("--dev");
await refuseUnsafeStart();
const log = logger("server");
const port = Number(process.env.PORT ?? 3000);
const host = env().HOST;
const server = applyHttpTimeouts(createServer(), env());
const app = next({ dev, dir: process.cwd(), port, httpServer: server });
const handle = app.getRequestHandler();
await app.prepare();
// Route modules need the runtime Next.js sets up in prepare() (its AsyncLocalStorage): load them after.
const { requestListener } = await import("./request-listener");

server.on("request", requestListener(handle, env().authUrl));
// Next.js logs uncaught errors rather than exiting; a port that cannot be had must still end the process.
server.once("error", (error) => {
  log.fatal({ error: error.message }, "cannot listen");
  process.exit(1);
});
// Loopback unless HOST says otherwise (containers set HOST=0.0.0.0).
server.listen(port, host, () =>
  log.info(`listening on http://${host.includes(":") ? `[${host}]` : host}:${port}${dev ? " (dev)" : ""}`),
);

// Alert rules are evaluated here too, so that no worker ticking is itself noticed (lib/worker/alert-round.ts).
const { ALERT_WATCH_INTERVAL_MS, watchAlerts } = await import("@/lib/worker/alert-round");
const { processWorkerContext } = await import("@/lib/worker/process-context");
const alertWatch = setInterval(() => void watchAlerts(processWorkerContext()), ALERT_WATCH_INTERVAL_MS);
alertWatch.unref();

// Confirmed bulk actions run here as tracked jobs, a paced batch at a time (decision 065).
const { BULK_JOB_ROUND_MS, runBulkJobsSafely } = await import("@/lib/worker/bulk-job-round");
const bulkJobs = setInterval(() => void runBulkJobsSafely(), BULK_JOB_ROUND_MS);
bulkJobs.unref();

// Requests in flight finish first; a worker tick may take its whole budget.
const drainMs = env().WORKER_TICK_BUDGET_MS + 5_000;
let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  clearInterval(alertWatch);
  clearInterval(bulkJobs);
  server.close(() => process.exit(0));
  setTimeout(() => {
    log.error(`requests still open after ${drainMs} ms; exiting`);
    process.exit(1);
  }, drainMs).unref();
}
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
