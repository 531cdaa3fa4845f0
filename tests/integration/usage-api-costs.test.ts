import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Stage } from "@/lib/domain/stages";
import { simulatorAdapters } from "@/lib/providers";
import { parkCase } from "@/lib/services/case/park-case";
import { importProviderCosts } from "@/lib/services/usage/import-provider-costs";
import { type RunningSimulator, startSimulator } from "@/verification/simulator";
import { makeUser, parkInput, producer } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// Decision 076: fal states what it billed a request in its Platform API's billing events, and
// Replicate what a prediction measured; the import reads them for the jobs whose holds have no cost
// yet, over HTTP, and settles each hold at its charge once. A job not billed yet (still running,
// failed), or a model the price table does not price, is left for the invoice file.
const { db } = openTestDb();
const shop = producer("api-costs-shop");
const MODEL = "fal-ai/kling-video/v2.5-turbo/pro";
const VIDEO_MODEL = "kwaivgi/kling-v2.1";

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, token: "sim-token", timings: { queuedMs: 0, runningMs: 0 } });
});
afterAll(() => sim?.stop());

const adapters = () =>
  simulatorAdapters(
    sim.url,
    { retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 50, perAttemptTimeoutMs: 2_000 } },
    "sim-token",
  );

async function heldJob(jobId: string, amountMicros: number, provider: "fal" | "replicate" = "fal", model = MODEL) {
  // At delivery: the job completed, so its outcome is known and a cost settles the hold at once.
  const input = parkInput("delivery" as Stage, {
    provider,
    model,
    providerJobId: jobId,
    hold: { holdId: `hold-${jobId}`, amountMicros, currency: "USD" },
  });
  const { caseId } = await parkCase(db, shop, input);
  return db.hold.findFirstOrThrow({ where: { caseId: String(caseId) } });
}

describe("fal's billing events, read from its Platform API through the simulator", () => {
  it("settles each billed request's hold at cost_estimate_nano_usd, once, and leaves an unbilled one", async () => {
    const adapter = adapters().fal;
    if (!adapter) throw new Error("no fal adapter");
    const billed = sim.state.createJob({ provider: "fal", model: MODEL, input: { seconds: 5 } });
    const differs = sim.state.createJob({ provider: "fal", model: MODEL, costMicros: 410_000 });
    const failed = sim.state.createJob({ provider: "fal", model: MODEL, outcome: "failed" });
    const held = await heldJob(billed.id, 500_000);
    const over = await heldJob(differs.id, 400_000);
    const unbilled = await heldJob(failed.id, 500_000);
    const finance = await makeUser(db, ["finance"]);

    const first = await importProviderCosts(db, finance, adapter, { limit: 200 });
    // $0.07 a second for 5 s: 350,000 micro-dollars; the second request was billed its own charge.
    expect(first.lines.find((l) => l.providerJobId === billed.id)).toMatchObject({
      outcome: "matched",
      amountMicros: "350000",
    });
    expect(first.lines.find((l) => l.providerJobId === differs.id)).toMatchObject({
      outcome: "matched",
      amountMicros: "410000",
    });
    expect(first.lines.find((l) => l.providerJobId === failed.id)).toBeUndefined();
    expect(await db.hold.findUniqueOrThrow({ where: { id: held.id } })).toMatchObject({
      status: "settled",
      settledMicros: 350_000n,
      releasedMicros: 150_000n,
    });
    const overage = await db.ledgerEntry.findMany({ where: { holdRef: over.id, kind: "overage" } });
    expect(overage.map((e) => e.amountMicros)).toEqual([10_000n]);
    expect(await db.hold.findUniqueOrThrow({ where: { id: unbilled.id } })).toMatchObject({ status: "held" });
    expect(sim.state.requests({ pathIncludes: "/fal-platform/v1/models/billing-events" }).length).toBeGreaterThan(0);

    const again = await importProviderCosts(db, finance, adapter, { limit: 200 });
    expect(again.lines.filter((l) => [billed.id, differs.id].includes(l.providerJobId ?? ""))).toEqual([]);
    expect(await db.usageLine.count({ where: { providerJobId: { in: [billed.id, differs.id] } } })).toBe(2);
    expect(sim.state.stats().creates).toMatchObject({ total: 0 });
  });
});

describe("Replicate's metrics, priced from the price table, read through the simulator", () => {
  it("settles a succeeded prediction's hold at the model's price times its video's seconds; an unpriced model is not read", async () => {
    const adapter = adapters().replicate;
    if (!adapter) throw new Error("no replicate adapter");
    await db.providerPrice.create({
      data: { provider: "replicate", model: VIDEO_MODEL, unit: "per_second", priceMicros: 60_000n, currency: "USD" },
    });
    const priced = sim.state.createJob({ provider: "replicate", model: VIDEO_MODEL, input: { seconds: 10 } });
    const unpriced = sim.state.createJob({ provider: "replicate", model: "someone/unpriced-model" });
    const failed = sim.state.createJob({ provider: "replicate", model: VIDEO_MODEL, outcome: "failed" });
    const held = await heldJob(priced.id, 1_000_000, "replicate", VIDEO_MODEL);
    const other = await heldJob(unpriced.id, 500_000, "replicate", "someone/unpriced-model");
    const gone = await heldJob(failed.id, 500_000, "replicate", VIDEO_MODEL);
    const finance = await makeUser(db, ["finance"]);

    const first = await importProviderCosts(db, finance, adapter, { limit: 200 });
    // The prediction says 10 s of video: 10 x $0.06.
    expect(first.lines.find((l) => l.providerJobId === priced.id)).toMatchObject({
      outcome: "matched",
      amountMicros: "600000",
    });
    expect(await db.hold.findUniqueOrThrow({ where: { id: held.id } })).toMatchObject({
      status: "settled",
      settledMicros: 600_000n,
    });
    for (const hold of [other, gone])
      expect(await db.hold.findUniqueOrThrow({ where: { id: hold.id } })).toMatchObject({ status: "held" });
    expect(sim.state.requests({ pathIncludes: `/replicate/v1/predictions/${unpriced.id}` })).toEqual([]);
    const again = await importProviderCosts(db, finance, adapter, { limit: 200 });
    expect(again.lines.find((l) => l.providerJobId === priced.id)).toBeUndefined();
    expect(sim.state.stats().creates).toMatchObject({ total: 0 });
  });
});
