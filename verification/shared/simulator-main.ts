import { createWriteStream } from "node:fs";
import { startSimulator } from "../simulator";

// The provider simulator as its own process (like scripts/simulator.ts), for the verification runs.
// Its in-memory request log keeps only the latest entries; a run needs every request, so each one
// is also appended to REQUEST_LOG as a JSON line (method, path, time) when that is set.
const port = Number(process.env.SIMULATOR_PORT);
const simulator = await startSimulator({
  port,
  timings: {
    queuedMs: Number(process.env.SIMULATOR_QUEUED_MS ?? 2_000),
    runningMs: Number(process.env.SIMULATOR_RUNNING_MS ?? 8_000),
  },
});
const logFile = process.env.REQUEST_LOG;
if (logFile) {
  const out = createWriteStream(logFile, { flags: "a" });
  const record = simulator.state.record.bind(simulator.state);
  simulator.state.record = (method, path, query) => {
    record(method, path, query);
    out.write(`${JSON.stringify({ method, path, atMs: Date.now() })}\n`);
  };
  process.on("SIGTERM", () => out.end(() => process.exit(0)));
} else {
  process.on("SIGTERM", () => process.exit(0));
}
console.log(`[simulator] listening on ${simulator.url}`);
