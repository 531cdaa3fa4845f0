import path from "node:path";
import type { Children } from "./children";

const READY_TIMEOUT_MS = 60_000;

/**
 * Starts the provider simulator and resolves with the address it actually bound, reported over IPC
 * once it listens. The port is never chosen by probing ahead of time (another process could take
 * it in between and answer the worker as "the provider"); a simulator that dies or stays silent
 * rejects, so the launcher goes no further.
 */
export function startSimulatorChild(children: Children, env: NodeJS.ProcessEnv): Promise<string> {
  const tsx = path.resolve("node_modules/tsx/dist/cli.mjs");
  const child = children.spawn("simulator", [tsx, path.resolve("scripts/simulator.ts")], env, { ipc: true });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      finish();
      reject(new Error(`the provider simulator did not report its address within ${READY_TIMEOUT_MS / 1000} s`));
    }, READY_TIMEOUT_MS);
    const onMessage = (message: unknown) => {
      const url = (message as { kind?: string; url?: unknown } | null)?.url;
      if ((message as { kind?: string } | null)?.kind !== "listening" || typeof url !== "string") return;
      finish();
      resolve(url);
    };
    const onExit = (code: number | null) => {
      finish();
      reject(new Error(`the provider simulator exited (code ${code ?? "by signal"}) before it listened`));
    };
    function finish() {
      clearTimeout(timer);
      child.off("message", onMessage);
      child.off("exit", onExit);
    }
    child.on("message", onMessage);
    child.once("exit", onExit);
  });
}
