import { type RunningSimulator, startSimulator } from "../../simulator";

/**
 * The provider simulator in a process of its own (as a provider would be), driven over IPC by the
 * drain benchmark: configured through its own admin routes (a rate limit over the provider API, a
 * fixed latency on every provider route), seeded with finished jobs, and keeping a complete log
 * of what it saw, marking the requests its rate limiter refused (its own log keeps only the last
 * 5,000 requests and not their answers).
 */
export type SeenRequest = { path: string; atMs: number; throttled: boolean };

export type ToSimulator =
  | { type: "seed"; jobs: string[]; outputBytes: number; createdAt: number }
  | { type: "report" }
  | { type: "stop" };

export type FromSimulator =
  | { type: "ready"; url: string }
  | { type: "seeded"; count: number }
  | { type: "report"; seen: SeenRequest[]; creates: number };

const send = (message: FromSimulator) => process.send?.(message);

async function configure(sim: RunningSimulator, requestsPerSecond: number, latencyMs: number): Promise<SeenRequest[]> {
  const response = await fetch(`${sim.url}/__admin/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ rateLimit: { requestsPerSecond }, rules: [{ fault: { type: "delay", ms: latencyMs } }] }),
  });
  if (!response.ok) throw new Error(`simulator admin: ${response.status} ${await response.text()}`);
  const seen: SeenRequest[] = [];
  // Both hooks run synchronously one after the other for the same request (server.ts `handle`),
  // so the limiter's verdict belongs to the request recorded just before it.
  const record = sim.state.record.bind(sim.state);
  sim.state.record = (method, path, query) => {
    seen.push({ path, atMs: performance.now(), throttled: false });
    record(method, path, query);
  };
  const limiter = sim.state.rateLimit;
  if (!limiter) throw new Error("the simulator did not take the rate limit");
  const take = limiter.take.bind(limiter);
  limiter.take = () => {
    const wait = take();
    const last = seen.at(-1);
    if (wait !== undefined && last) last.throttled = true;
    return wait;
  };
  return seen;
}

const sim = await startSimulator({ port: 0 });
const seen = await configure(sim, Number(process.env.DRAIN_RPS), Number(process.env.DRAIN_LATENCY_MS));
process.on("message", (message: ToSimulator) => {
  if (message.type === "seed") {
    for (const id of message.jobs) {
      sim.state.seedJob({
        provider: "replicate",
        id,
        model: "minimax/video-01",
        outcome: "succeeded",
        queuedMs: 0,
        runningMs: 0,
        outputBytes: message.outputBytes,
        createdAt: message.createdAt,
      });
    }
    send({ type: "seeded", count: message.jobs.length });
  } else if (message.type === "report") {
    send({ type: "report", seen, creates: sim.state.createCount() });
  } else {
    void sim.stop().then(() => process.exit(0));
  }
});
// A benchmark that dies takes its simulator with it.
process.on("disconnect", () => process.exit(0));
send({ type: "ready", url: sim.url });
