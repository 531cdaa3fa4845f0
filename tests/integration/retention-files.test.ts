import { mkdir, mkdtemp, readdir, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveCase } from "@/lib/services/case/approve-case";
import { parkCase } from "@/lib/services/case/park-case";
import { claimActions, proofOf } from "@/lib/services/claim/claim-actions";
import { saveRetentionPolicy } from "@/lib/services/retention/retention-policy";
import { runRetention } from "@/lib/services/retention/run-retention";
import { localStorage } from "@/lib/storage/local-storage";
import { deliverOutputs } from "@/lib/worker/deliver-outputs";
import type { WorkerContext } from "@/lib/worker/worker-context";
import { type RunningSimulator, startSimulator } from "@/verification/simulator";
import { makeUser, parkInput, producer, publishedAsset, worker } from "./fixtures";
import { testWorkerContext } from "./helpers/worker-context";
import { openTestDb } from "./setup/test-db";

// DESIGN rule 20 for files: what is on disk ends too, not only what an asset row names.
process.env.WORKER_LOG = "0";
const { db } = openTestDb();
const bot = worker();
const DAY = 86_400_000;
let root: string;
let storage: ReturnType<typeof localStorage>;
let sim: RunningSimulator;
let ctx: WorkerContext;
const run = () => runRetention(db, storage, bot, { now: new Date(), deadline: Date.now() + 10_000 });

/** A file written under the root, its last write `daysAgo` days back. */
async function fileOnDisk(key: string, daysAgo: number) {
  const full = path.join(root, key);
  await mkdir(path.dirname(full), { recursive: true });
  await writeFile(full, "bytes");
  const at = new Date(Date.now() - daysAgo * DAY);
  await utimes(full, at, at);
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "retention-files-"));
  storage = localStorage(root);
  sim = await startSimulator({ port: 0, timings: { queuedMs: 0, runningMs: 0, outputBytes: 16 * 1024 } });
  ctx = await testWorkerContext(db, sim.url, { storage });
  const admin = await makeUser(db, ["admin"]);
  await saveRetentionPolicy(db, admin, { producer: null, days: 30 });
});
afterAll(() => sim.stop());

describe("files swept by what is on disk", () => {
  it("removes an old file no row names; keeps a young one, an old one a row names, and never follows a link", async () => {
    await fileOnDisk("orphans/old", 31);
    await fileOnDisk("orphans/young", 29);
    // A published video of a case still open: its row names it, however old the file is.
    const { caseId } = await parkCase(db, producer(), parkInput("delivery", { providerJobId: "job-named" }));
    const kase = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    await fileOnDisk("named/video", 60);
    await publishedAsset(db, kase, { storageKey: "named/video", sizeBytes: 5, sha256: "cd".repeat(32) });
    // A link to a directory outside the root, holding an old file: neither followed nor removed.
    const outside = await mkdtemp(path.join(tmpdir(), "retention-outside-"));
    await writeFile(path.join(outside, "precious"), "keep");
    const at = new Date(Date.now() - 90 * DAY);
    await utimes(path.join(outside, "precious"), at, at);
    await symlink(outside, path.join(root, "escape"));

    const result = await run();
    expect(result.orphanFiles).toBe(1);
    expect(await storage.exists("orphans/old")).toBe(false);
    expect(await storage.exists("orphans/young")).toBe(true);
    expect(await storage.exists("named/video")).toBe(true);
    expect(await readdir(outside)).toEqual(["precious"]);
  });

  it("pages through more old files than one listing holds, so named files listed first cannot hide an orphan", async () => {
    // One batch lists 20 files: 20 old files that rows name come first in key order, the orphan after them.
    for (let i = 0; i < 20; i++) {
      const { caseId } = await parkCase(db, producer(), parkInput("delivery", { providerJobId: `job-page-${i}` }));
      const kase = await db.case.findUniqueOrThrow({ where: { id: caseId } });
      const key = `a-named/${String(i).padStart(2, "0")}`;
      await fileOnDisk(key, 60);
      await publishedAsset(db, kase, { storageKey: key, sizeBytes: 5, sha256: "ef".repeat(32) });
    }
    await fileOnDisk("z-orphan/old", 40);
    const once = () => runRetention(db, storage, bot, { now: new Date(), deadline: Date.now() + 10_000, batch: 1 });
    expect((await once()).orphanFiles).toBe(0);
    expect(await storage.exists("z-orphan/old")).toBe(true);
    expect((await once()).orphanFiles).toBe(1);
    expect(await storage.exists("z-orphan/old")).toBe(false);
    expect(await storage.exists("a-named/00")).toBe(true);
  });
});

describe("a delivery that stored output 0 and failed on output 1", () => {
  it("removes the file it stored along with the reserved rows, so nothing is left on disk", async () => {
    const first = sim.state.seedJob({ provider: "replicate", outcome: "succeeded" });
    const second = sim.state.seedJob({ provider: "replicate", outcome: "succeeded" });
    sim.state.faults.add({
      match: { jobId: second.id, route: "download" },
      fault: { type: "http_error", status: 403 },
    });
    const reviewer = await makeUser(db, ["reviewer"]);
    const { caseId } = await parkCase(
      db,
      producer(),
      parkInput("delivery", { provider: first.provider, model: first.model, providerJobId: first.id }),
    );
    await approveCase(db, reviewer, caseId, { action: "retry_delivery", evidence: "copy both" });
    const [claimed] = await claimActions(db, bot, { max: 1 });
    if (!claimed || claimed.caseId !== caseId) throw new Error("expected to claim the delivery");
    const adapter = ctx.adapters.replicate;
    if (!adapter) throw new Error("the simulator's replicate adapter is missing");
    const output = async (jobId: string) => {
      const status = await adapter.getJob({ providerJobId: jobId });
      if (status.kind !== "completed") throw new Error(`expected a completed job, got ${status.kind}`);
      return status.outputs[0] as NonNullable<(typeof status.outputs)[0]>;
    };
    const outputs = [await output(first.id), await output(second.id)] as const;
    const before = await storage.listOlderThan(new Date(Date.now() + DAY), 1000);

    await deliverOutputs(ctx, bot, proofOf(claimed, bot.workerId), {
      adapter,
      caseId,
      episode: claimed.episode,
      outputs: [...outputs],
      signal: new AbortController().signal,
    });

    expect(await db.asset.count({ where: { caseId } })).toBe(0);
    const after = await storage.listOlderThan(new Date(Date.now() + DAY), 1000);
    expect(after.filter((key) => key.startsWith(caseId))).toEqual([]);
    expect(after.filter((key) => !before.includes(key))).toEqual([]);
  });
});
