import { type ChildProcess, fork } from "node:child_process";
import path from "node:path";
import type { FromSimulator, SeenRequest, ToSimulator } from "./drain-simulator-child";

export type { SeenRequest };

export type DrainSimulator = {
  url: string;
  pid: number | undefined;
  seed(jobs: string[], outputBytes: number): Promise<void>;
  report(): Promise<{ seen: SeenRequest[]; creates: number }>;
  stop(): Promise<void>;
};

/** Starts drain-simulator-child.ts as a child process on an ephemeral port. */
export async function startDrainSimulator(input: {
  requestsPerSecond: number;
  latencyMs: number;
}): Promise<DrainSimulator> {
  const child: ChildProcess = fork(path.join(import.meta.dirname, "drain-simulator-child.ts"), [], {
    execArgv: ["--import", "tsx"],
    env: { ...process.env, DRAIN_RPS: String(input.requestsPerSecond), DRAIN_LATENCY_MS: String(input.latencyMs) },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const next = <K extends FromSimulator["type"]>(type: K) =>
    new Promise<Extract<FromSimulator, { type: K }>>((resolve, reject) => {
      const onMessage = (message: FromSimulator) => {
        if (message.type !== type) return;
        child.off("message", onMessage);
        child.off("exit", onExit);
        resolve(message as Extract<FromSimulator, { type: K }>);
      };
      const onExit = (code: number | null) => reject(new Error(`the simulator exited (${code})`));
      child.on("message", onMessage);
      child.once("exit", onExit);
    });
  const send = (message: ToSimulator) => child.send(message);
  const { url } = await next("ready");
  return {
    url,
    pid: child.pid,
    async seed(jobs, outputBytes) {
      const seeded = next("seeded");
      // Finished a minute ago: well inside the output's one-hour retention.
      send({ type: "seed", jobs, outputBytes, createdAt: Date.now() - 60_000 });
      await seeded;
    },
    async report() {
      const report = next("report");
      send({ type: "report" });
      const { seen, creates } = await report;
      return { seen, creates };
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      send({ type: "stop" });
      await exited;
    },
  };
}
