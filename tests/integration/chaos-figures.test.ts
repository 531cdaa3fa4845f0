import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTick } from "@/lib/worker/run-tick";
import type { WorkerContext } from "@/lib/worker/worker-context";
import { chaosFigures } from "@/verification/chaos/figures";
import { SCENARIOS } from "@/verification/chaos/scenarios";
import { seedChaosActions } from "@/verification/chaos/seed";
import { seededRandom } from "@/verification/shared/random";
import { tallyRequests } from "@/verification/shared/simulator-requests";
import { type RunningSimulator, startSimulator } from "@/verification/simulator";
import { type ManualClock, manualClock } from "@/verification/simulator/clock";
import { worker } from "./fixtures";
import { testWorkerContext } from "./helpers/worker-context";
import { openTestDb } from "./setup/test-db";

// The chaos run's checker must read the product's audit and observations as the product writes
// them today: one action of every chaos scenario, carried out by the real worker, has to come out
// with every correctness figure at 0. (Outputs found gone once read as a claim without an ending
// and as a double execution, 828 times in a 10,000-action run, while the product was right.)
process.env.WORKER_LOG = "0";
const { db, url } = openTestDb();
let sim: RunningSimulator;
let clock: ManualClock;
let ctx: WorkerContext;
let pool: pg.Pool;

beforeAll(async () => {
  clock = manualClock(Date.now());
  sim = await startSimulator({ port: 0, clock });
  ctx = await testWorkerContext(db, sim.url, { concurrency: 4 });
  pool = new pg.Pool({ connectionString: url, max: 2 });
});
afterAll(async () => {
  await pool.end();
  await sim.stop();
});

/** Ticks until nothing is claimable; then provider time passes and rescheduled checks fall due. */
async function drain(rounds: number) {
  const actor = worker("chaos-figures");
  for (let round = 0; round < rounds; round++) {
    while ((await runTick(ctx, actor, { maxTasks: 10 })).claimed > 0);
    const open = await db.recoveryAction.count({ where: { status: { in: ["ready", "claimed"] } } });
    if (open === 0) return;
    clock.advance(10 * 60_000);
    await db.recoveryAction.updateMany({ where: { status: "ready" }, data: { readyAt: new Date(Date.now() - 1_000) } });
  }
}

describe("the chaos run's figures", () => {
  it("read one action of every scenario, outputs gone included, as ended once and as planned", async () => {
    const seeded = await seedChaosActions(
      db,
      {
        simulatorUrl: sim.url,
        count: SCENARIOS.length,
        random: seededRandom(31337),
        concurrency: 1,
        runId: "figures",
        scenarios: SCENARIOS,
      },
      () => {},
    );
    await drain(5);
    const provider = tallyRequests(sim.state.requests());
    const figures = await chaosFigures(pool, seeded, { byJob: provider.byJob, createCalls: provider.totals.create });

    expect(Object.keys(figures.byScenario).sort()).toEqual(SCENARIOS.map((s) => s.name).sort());
    expect(figures.byScenario.output_expired).toEqual({ seeded: 1, completed: 0, reparked: 1 });
    expect(figures).toMatchObject({
      actionsSeeded: SCENARIOS.length,
      leftReadyOrClaimed: 0,
      endedNotAsPlanned: 0,
      lostCases: 0,
      claimsUnaccounted: 0,
      doubleExecutionsAudit: 0,
      holdsNotAsPlanned: 0,
      doubleExecutionsProvider: 0,
      providerCallsAfterFinish: 0,
      deliveredWithoutDownload: 0,
      providerCreateCalls: 0,
    });
    expect(figures.executedToCompletion + figures.safelyReparked).toBe(SCENARIOS.length);
    // The still-running job was checked, handed back, and checked again: more claims than actions.
    expect(figures.claims).toBeGreaterThan(SCENARIOS.length);
  });
});
