import os from "node:os";
import { z } from "zod";
import { logger } from "../lib/log/logger";

// Calls the worker route in a loop: right away again while there is work, every WORKER_INTERVAL_MS
// when idle, backing off when the app is unreachable. Ctrl-C/SIGTERM stop it after the current tick.
const config = z
  .object({
    APP_URL: z.url().default("http://localhost:3000"),
    WORKER_TOKEN: z.string().startsWith("vrw_", "a worker token (npm run worker-token:create)"),
    WORKER_ID: z.string().default(`${os.hostname()}-${process.pid}`),
    WORKER_INTERVAL_MS: z.coerce.number().int().min(100).default(2_000),
    WORKER_MAX_TASKS: z.coerce.number().int().min(1).max(50).default(10),
  })
  .safeParse(process.env);
const log = logger("worker");
if (!config.success) {
  log.fatal(config.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "));
  process.exit(2);
}
const { APP_URL, WORKER_TOKEN, WORKER_ID, WORKER_INTERVAL_MS, WORKER_MAX_TASKS } = config.data;

// A stop request ends the wait between ticks at once: a backed-off worker must not sleep on for a
// minute after its launcher asked it to stop.
const stopRequested = new AbortController();
let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    stopping = true;
    stopRequested.abort();
  });
}
const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    const wake = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      stopRequested.signal.removeEventListener("abort", wake);
      resolve();
    }, ms);
    stopRequested.signal.addEventListener("abort", wake, { once: true });
  });

let failures = 0;
while (!stopping) {
  try {
    const response = await fetch(`${APP_URL}/api/worker/tick`, {
      method: "POST",
      headers: { authorization: `Bearer ${WORKER_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ workerId: WORKER_ID, maxTasks: WORKER_MAX_TASKS }),
      signal: AbortSignal.timeout(90_000),
    });
    const body = (await response.json()) as { claimed?: number; error?: { code: string; message: string } };
    if (!response.ok) throw new Error(`${response.status} ${body.error?.code ?? ""} ${body.error?.message ?? ""}`);
    failures = 0;
    if ((body.claimed ?? 0) > 0) continue;
  } catch (error) {
    failures += 1;
    log.error({ failures, error: error instanceof Error ? error.message : String(error) }, "tick failed");
  }
  await sleep(Math.min(60_000, WORKER_INTERVAL_MS * 2 ** Math.min(failures, 5)));
}
