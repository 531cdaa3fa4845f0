import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createPrismaClient, type PrismaClient } from "@/lib/db/client";
import { simulatorAdapters } from "@/lib/providers";
import { listProviderPaces, saveProviderPace } from "@/lib/services/admin/save-provider-pace";
import { approveCase } from "@/lib/services/case/approve-case";
import { parkCase } from "@/lib/services/case/park-case";
import { pacedAdapters, providerPacesFromEnv, sharedProviderPace } from "@/lib/worker/provider-pace";
import { runTick } from "@/lib/worker/run-tick";
import { type RunningSimulator, startSimulator } from "@/verification/simulator";
import { RateLimiter } from "@/verification/simulator/faults";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { testWorkerContext } from "./helpers/worker-context";
import { openTestDb } from "./setup/test-db";

// Decision 030: the pace of a provider's API is one row in PostgreSQL, so two worker processes
// (here: two contexts, each with its own Prisma client and connection pool) keep to the provider's
// rate together, and a Retry-After one of them is given holds the other back too.
process.env.WORKER_LOG = "0";
const { db, url } = openTestDb();
const shop = producer("pacing-shop");
const RATE = 20;
let sim: RunningSimulator;
let processes: PrismaClient[];

beforeAll(async () => {
  sim = await startSimulator({ port: 0 });
  processes = [createPrismaClient(url, 5), createPrismaClient(url, 5)];
});
afterAll(async () => {
  await Promise.all(processes.map((client) => client.$disconnect()));
  await sim.stop();
});
beforeEach(async () => {
  await db.providerPace.deleteMany();
  sim.state.reset();
});

/** Approved resume_poll actions on jobs still running: each is exactly one status request. */
async function readyPolls(count: number) {
  const reviewer = await makeUser(db, ["reviewer"]);
  for (let i = 0; i < count; i++) {
    const job = sim.state.seedJob({ provider: "replicate", queuedMs: 0, runningMs: 3_600_000 });
    const { caseId } = await parkCase(db, shop, parkInput("polling", { providerJobId: job.id }));
    await approveCase(db, reviewer, caseId, { action: "resume_poll", evidence: "still running" });
  }
}

/** One worker context per "process", paced as deployed from `env`. */
function processContexts(env: Record<string, string | undefined>) {
  return Promise.all(
    processes.map(async (client) => {
      // One attempt per request: a refusal shows up in the simulator's count instead of being retried.
      // Its timeout is far past any wait here, so a busy machine cannot turn one check into two.
      const adapters = simulatorAdapters(sim.url, { retry: { maxAttempts: 1, perAttemptTimeoutMs: 60_000 } });
      return testWorkerContext(client, sim.url, {
        adapters: pacedAdapters(adapters, providerPacesFromEnv(client, env)),
        concurrency: 5,
      });
    }),
  );
}

/** Both "processes" tick until neither claims anything; the paces come from the environment, as deployed. */
async function drainTogether(env: Record<string, string | undefined>) {
  const contexts = await processContexts(env);
  const started = performance.now();
  await Promise.all(
    contexts.map(async (ctx, i) => {
      const actor = worker(`pace-${i}`);
      while ((await runTick(ctx, actor, { maxTasks: 10 })).claimed > 0);
    }),
  );
  return performance.now() - started;
}

const statusRequests = () => sim.state.requests({ method: "GET", pathIncludes: "/predictions/" });

describe("provider pacing shared by every worker process", () => {
  it("unpaced, two processes overrun the provider's rate (what the shared pace prevents)", async () => {
    // The provider's clock stands still for the whole drain, so all of it is one of the provider's
    // seconds: what the provider refuses is counted from what the product sent, not from how fast
    // this machine happened to send it. Unpaced, nothing holds a request back: every request past
    // the rate's first second is refused (a paced drain at the same clock would wait out its slots).
    const frozen = performance.now();
    sim.state.rateLimit = new RateLimiter(RATE, () => frozen);
    await readyPolls(40);
    // One tick each claims every action once: one status request per action, whatever the pace.
    const contexts = await processContexts({});
    await Promise.all(contexts.map((ctx, i) => runTick(ctx, worker(`pace-${i}`), { maxTasks: 20 })));
    const sent = statusRequests().length;
    expect(sent).toBeGreaterThan(RATE);
    expect(sim.state.rateLimit.refused).toBe(sent - RATE);
    // The refused checks were rescheduled; they must not fall due in the next test's drain.
    await db.recoveryAction.updateMany({
      where: { status: "ready" },
      data: { readyAt: new Date(Date.now() + 86_400_000) },
    });
    // Its waits are the shared Retry-Afters the refusals set; the bound only stops a hang.
  }, 120_000);

  it("paced at the provider's rate, two processes drain together without one refused request", async () => {
    sim.state.rateLimit = new RateLimiter(RATE);
    await readyPolls(40);
    // The rate is the provider's for the whole deployment, not each process's share of it.
    const drainStartedAt = Date.now();
    const elapsed = await drainTogether({ REPLICATE_REQUESTS_PER_SECOND: String(RATE) });
    expect(sim.state.rateLimit.refused).toBe(0);
    const requests = statusRequests();
    expect(requests).toHaveLength(40);
    // Spaced evenly: 40 slots at 20 per second, the first at once, take 39 intervals.
    expect(elapsed).toBeGreaterThanOrEqual(((40 - 1) / RATE) * 1000 - 50);
    // The i-th request waited for the i-th slot (two unshared paces would give it the (i/2)-th).
    // Only lower bounds: a busy machine can make a request late, never early.
    const times = requests.map((r) => r.atMs).sort((a, b) => a - b);
    times.forEach((at, i) => {
      expect(at - drainStartedAt).toBeGreaterThanOrEqual((i / RATE) * 1000 - 50);
    });
    const [row] = await db.providerPace.findMany();
    expect(row?.requestsPerSecond).toBe(RATE);
  }, 120_000);

  it("a Retry-After one process is given makes the other wait it out, even with no rate set", async () => {
    const [first, second] = processes.map((client) =>
      pacedAdapters(simulatorAdapters(sim.url, { retry: { maxAttempts: 1, perAttemptTimeoutMs: 5_000 } }), {
        replicate: sharedProviderPace(client, "replicate"),
      }),
    );
    const a = sim.state.seedJob({ provider: "replicate", queuedMs: 0, runningMs: 3_600_000 });
    const b = sim.state.seedJob({ provider: "replicate", queuedMs: 0, runningMs: 3_600_000 });
    sim.state.faults.add({ match: { route: "status" }, fault: { type: "rate_limit", retryAfterSeconds: 1 }, times: 1 });

    const refused = await first?.replicate?.getJob({ providerJobId: a.id });
    expect(refused).toMatchObject({ kind: "unknown", httpStatus: 429, retryAfterMs: 1_000 });
    const answered = await second?.replicate?.getJob({ providerJobId: b.id });
    expect(answered?.kind).toBe("running");
    // Timed where the provider saw the two requests: the test's own clock resumes late on a busy
    // machine, after part of the wait has passed, so it can only read less than the wait.
    const [refusedAt, secondAt] = statusRequests().map((r) => r.atMs);
    expect((secondAt as number) - (refusedAt as number)).toBeGreaterThanOrEqual(950);
  });

  it("a Retry-After is shared at once, while the refused request is still waiting to retry", async () => {
    const [first, second] = processes.map((client) =>
      pacedAdapters(
        simulatorAdapters(sim.url, { retry: { maxAttempts: 2, baseDelayMs: 10, perAttemptTimeoutMs: 5_000 } }),
        {
          replicate: sharedProviderPace(client, "replicate"),
        },
      ),
    );
    const a = sim.state.seedJob({ provider: "replicate", queuedMs: 0, runningMs: 3_600_000 });
    const b = sim.state.seedJob({ provider: "replicate", queuedMs: 0, runningMs: 3_600_000 });
    sim.state.faults.add({
      match: { jobId: a.id },
      fault: { type: "rate_limit", retryAfterSeconds: 1 },
      times: 1,
    });
    const retried = first?.replicate?.getJob({ providerJobId: a.id });
    // Once the refused process has shared the Retry-After, the other asks, and is held back too.
    while ((await db.providerPace.count({ where: { holdOffUntil: { gt: new Date() } } })) === 0) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const answered = await second?.replicate?.getJob({ providerJobId: b.id });
    expect((await retried)?.kind).toBe("running");
    expect(answered?.kind).toBe("running");
    const [refusedAt, ...later] = statusRequests().map((r) => r.atMs);
    expect(later).toHaveLength(2);
    for (const at of later) expect(at - (refusedAt as number)).toBeGreaterThanOrEqual(950);
  });

  it("reserves every slot once across processes: concurrent takes are spaced by the rate", async () => {
    await db.providerPace.create({ data: { provider: "fal", requestsPerSecond: 10 } });
    // Connections open first, so the takes race each other rather than the pools' start.
    await Promise.all(processes.map((client) => client.$queryRaw`SELECT 1`));
    const slots: number[] = [];
    const paces = processes.map((client) =>
      sharedProviderPace(client, "fal", async (ms) => {
        slots.push(performance.now() + ms);
      }),
    );
    await Promise.all(Array.from({ length: 10 }, (_, i) => paces[i % 2]?.take()));
    // Ten slots 100 ms apart, whichever process asked (the first may go at once, without waiting).
    const sorted = [...slots].sort((a, b) => a - b);
    expect(sorted.length).toBeGreaterThanOrEqual(9);
    for (let i = 1; i < sorted.length; i++)
      expect((sorted[i] as number) - (sorted[i - 1] as number)).toBeGreaterThan(80);
  });

  it("an admin sets or clears a provider's rate, audited, and an environment rate never overwrites it", async () => {
    const admin = await makeUser(db, ["admin"]);
    await saveProviderPace(db, admin, { provider: "replicate", requestsPerSecond: 5 });
    await providerPacesFromEnv(db, { REPLICATE_REQUESTS_PER_SECOND: "50" }).replicate.take();
    expect((await listProviderPaces(db, admin)).find((p) => p.provider === "replicate")?.requestsPerSecond).toBe(5);
    await saveProviderPace(db, admin, { provider: "replicate", requestsPerSecond: null });
    const audit = await db.auditEvent.findMany({ where: { kind: "provider_pace_updated" }, orderBy: { id: "asc" } });
    expect(audit.map((e) => [e.before, e.after])).toEqual([
      [
        { provider: "replicate", requestsPerSecond: null },
        { provider: "replicate", requestsPerSecond: 5 },
      ],
      [
        { provider: "replicate", requestsPerSecond: 5 },
        { provider: "replicate", requestsPerSecond: null },
      ],
    ]);
    const reviewer = await makeUser(db, ["reviewer"]);
    await expect(saveProviderPace(db, reviewer, { provider: "fal", requestsPerSecond: 1 })).rejects.toMatchObject({
      code: "forbidden",
    });
  });
});
