import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { requestFingerprint } from "@/lib/domain/fingerprint";
import { env } from "@/lib/env";
import { reportOutcome } from "@/lib/services/permit/report-outcome";
import { requestPermit } from "@/lib/services/permit/request-permit";
import { serveDirect } from "@/server/serve-direct";
import { startSimulator } from "@/verification/simulator";
import { outcomeInput, permitInput, producer } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// The provider simulator sends signed webhooks as Replicate and fal do, with their delivery faults
// (a broken signature first, the same event twice, a stale `processing` after the final event), to
// the app's own HTTP entry at the URL a send permit named. The app keeps each event once and ends
// in one outcome.
const sim = await startSimulator({ port: 0, timings: { queuedMs: 0, runningMs: 150, outputBytes: 8 * 1024 } });
const app = createServer((req, res) => {
  if (serveDirect(req, res)) return;
  res.statusCode = 404;
  res.end();
});
await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));
process.env.AUTH_URL = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
process.env.AUTH_SECRET ??= "simulator-webhooks-secret-0123456789abcdef";
process.env.REPLICATE_WEBHOOK_SECRET = sim.webhooks.replicateSecret;
process.env.FAL_JWKS_URL = sim.webhooks.falJwksUrl;

const { db } = openTestDb();
const shop = producer("sim-webhook-shop");
afterAll(async () => {
  await sim.stop();
  await new Promise<void>((resolve) => app.close(() => resolve()));
});

// Generous: on a loaded machine a signed delivery, its key fetch and the app's transaction take seconds.
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 25_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > end) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("the simulator's signed webhooks", () => {
  it("attach a lost Replicate answer to its uncertain case, through every delivery fault, once", async () => {
    // Delayed past the shop's report, so the report parks the send before the provider's word arrives.
    sim.state.webhooks.faults = { duplicate: true, lateProcessing: true, badSignatureFirst: true, delayMs: 3_000 };
    // The permit names the request the shop sends, as the provider's copy of it will (rule 17).
    const request = { prompt: "a fox" };
    const { operationId, input } = permitInput({
      provider: "replicate",
      model: "minimax/video-01",
      requestFingerprint: requestFingerprint(request),
    });
    const permit = await requestPermit(db, shop, operationId, input, env());
    if (permit.status !== "permitted" || !permit.webhook) throw new Error("no permit");
    // The shop's create, with the permit's webhook URL; its answer is then lost.
    const created = await fetch(`${sim.url}/replicate/v1/models/minimax/video-01/predictions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: request, webhook: permit.webhook.urls.replicate }),
    });
    const jobId = ((await created.json()) as { id: string }).id;
    const parked = await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, 1, "unknown"));
    const sent = await until(
      async () => sim.state.webhooks.sent.filter((w) => w.jobId === jobId),
      (list) => list.length >= 4,
    );
    expect(sent.map((w) => [w.signed, w.answer])).toEqual([
      [false, 401],
      [true, 200],
      [true, 200],
      [true, 200],
    ]);
    expect(await db.case.findUniqueOrThrow({ where: { id: parked.caseId ?? "" } })).toMatchObject({
      providerJobId: jobId,
      stage: "delivery",
      state: "parked",
    });
    const kept = await db.providerWebhook.findMany({ where: { providerJobId: jobId }, orderBy: { id: "asc" } });
    expect(kept.map((w) => [w.statusKind, w.outcome])).toEqual([
      ["completed", "attached"],
      ["running", "observed"],
    ]);
    expect(await db.ledgerEntry.count({ where: { hold: { caseId: parked.caseId }, kind: "settle" } })).toBe(1);
    expect(sim.state.createCount()).toBe(1);
  });

  it("answer a fal send the shop reported accepted: the completion settles the permit's hold", async () => {
    // Delayed past the shop's report, as the title says: the report records the job, the webhook answers it.
    sim.state.webhooks.faults = { duplicate: true, lateProcessing: false, badSignatureFirst: false, delayMs: 2_000 };
    const model = "fal-ai/kling-video/v2.5-turbo/pro/text-to-video";
    const { operationId, input } = permitInput({ provider: "fal", model });
    const permit = await requestPermit(db, shop, operationId, input, env());
    if (permit.status !== "permitted" || !permit.webhook) throw new Error("no permit");
    const created = await fetch(`${sim.url}/fal/${model}?fal_webhook=${encodeURIComponent(permit.webhook.urls.fal)}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ prompt: "a fox" }),
    });
    const requestId = ((await created.json()) as { request_id: string }).request_id;
    await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, 1, "accepted", requestId));
    const settled = await until(
      () => db.hold.findFirstOrThrow({ where: { holdId: input.hold.holdId } }),
      (hold) => hold.status === "settled",
    );
    expect(settled).toMatchObject({ status: "settled", settledMicros: 100_000n });
    expect(await db.sendPermit.findFirstOrThrow({ where: { operation: { operationId } } })).toMatchObject({
      status: "completed",
    });
  });
});
