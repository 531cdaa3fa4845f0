import path from "node:path";
import { serverNodeArgs } from "../../server/node-args";
import { ManagedProcess } from "./managed-process";

/** The app's HTTP entry on the verification build, with the run's database, simulator and settings. */
export function appServer(input: { port: number; env: Record<string, string>; logFile: string }): ManagedProcess {
  const env = { ...process.env, ...input.env, PORT: String(input.port), NODE_ENV: "production" as const };
  return new ManagedProcess("server", serverNodeArgs(), () => env, input.logFile);
}

/** The provider simulator as a process of its own, logging every request it gets to `requestLog`. */
export function simulatorProcess(input: {
  port: number;
  requestLog?: string;
  logFile: string;
  env?: Record<string, string>;
}) {
  const env = {
    ...process.env,
    ...input.env,
    SIMULATOR_PORT: String(input.port),
    ...(input.requestLog ? { REQUEST_LOG: input.requestLog } : {}),
  };
  const script = path.resolve("verification/shared/simulator-main.ts");
  return new ManagedProcess("simulator", ["--import", "tsx", script], () => env, input.logFile);
}

/**
 * Worker loops (scripts/worker.ts), one token each, as production would run them. A restarted
 * worker is a new process and gets a new worker ID, as `hostname-pid` would give it.
 */
export function workerLoops(input: {
  appUrl: string;
  tokens: string[];
  idPrefix: string;
  intervalMs: number;
  maxTasks: number;
  logFile: string;
}): ManagedProcess[] {
  const script = path.resolve("scripts/worker.ts");
  return input.tokens.map((token, index) => {
    const name = `${input.idPrefix}-${String(index + 1).padStart(2, "0")}`;
    const env = (start: number) => ({
      ...process.env,
      APP_URL: input.appUrl,
      WORKER_TOKEN: token,
      WORKER_ID: `${name}-r${start}`,
      WORKER_INTERVAL_MS: String(input.intervalMs),
      WORKER_MAX_TASKS: String(input.maxTasks),
    });
    return new ManagedProcess(name, ["--import", "tsx", script], env, input.logFile);
  });
}
