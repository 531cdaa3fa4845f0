import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_ROUTES, routeKey } from "@/lib/api/routes";
import { requestFingerprint } from "@/lib/domain/fingerprint";
import { simulatorAdapters } from "@/lib/providers";
import type { ProviderName } from "@/lib/providers/types";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { alertFigures } from "@/lib/services/alert/alert-figures";
import { parkCase } from "@/lib/services/case/park-case";
import { exportFinanceCsv } from "@/lib/services/finance/export-ledger";
import { metricsSnapshot } from "@/lib/services/overview/metrics-snapshot";
import { attachUnexplainedCharge } from "@/lib/services/usage/attach-unexplained-charge";
import { importUsageFile } from "@/lib/services/usage/import-usage-file";
import { ledgerVersusInvoice } from "@/lib/services/usage/ledger-versus-invoice";
import { listUnexplainedCharges } from "@/lib/services/usage/list-unexplained-charges";
import { markChargeKnownOutside } from "@/lib/services/usage/mark-charge-known-outside";
import { sweepProviderJobs, sweepProviderJobsIfDue } from "@/lib/services/usage/sweep-provider-jobs";
import { unexplainedFigures } from "@/lib/services/usage/unexplained-figures";
import { type RunningSimulator, startSimulator } from "@/verification/simulator";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { callRoute } from "./helpers/call-route";
import { openTestDb } from "./setup/test-db";

// Decision 074: charges no operation explains. Jobs are read from the simulator's job list over
// HTTP; each test uses its own currency (and job IDs), so one test's charges never move another's
// figures, and reads the list by job ID.
const { db } = openTestDb();
const shop = producer("unexplained-shop");
const MODEL = "minimax/video-01";
const TOKEN = "sim-token";
const HOUR = 3_600_000;
let sim: RunningSimulator;
let adapters: ReturnType<typeof simulatorAdapters>;

beforeAll(async () => {
  sim = await startSimulator({
    port: 0,
    token: TOKEN,
    timings: { queuedMs: 0, runningMs: 0, outputBytes: 1024, outputTtlMs: 48 * HOUR },
  });
  adapters = simulatorAdapters(
    sim.url,
    { retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 50, perAttemptTimeoutMs: 2_000 } },
    TOKEN,
  );
});
afterAll(() => sim?.stop());

const sweep = () => sweepProviderJobs({ db, adapters: { replicate: adapters.replicate } }, worker());
const codeOf = (error: unknown) => (error as { code?: string } | undefined)?.code;
const refused = (promise: Promise<unknown>) => promise.then(() => "no error", codeOf);
const csv = (rows: string[]) => `provider_job_id,amount,currency,time,model\n${rows.join("\n")}\n`;
const importLines = async (rows: string[], provider: ProviderName = "replicate") =>
  importUsageFile(db, await makeUser(db, ["finance"]), {
    provider,
    format: "generic",
    fileName: `usage-${Math.random().toString(36).slice(2)}.csv`,
    content: csv(rows),
  });
const chargeOf = async (providerJobId: string, provider: ProviderName = "replicate") => {
  const view = await listUnexplainedCharges(db, await makeUser(db, ["finance"]), { provider, page: 1, pageSize: 100 });
  return view.charges.find((c) => c.providerJobId === providerJobId);
};

/** A job created at the provider by a script with the API key, outside any permit. */
async function createdByScript(input: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${sim.url}/replicate/v1/models/${MODEL}/predictions`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ input }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

async function uncertain(input: Record<string, unknown>, submittedAt: Date, currency: string, model = MODEL) {
  const { caseId } = await parkCase(
    db,
    shop,
    parkInput("submission_uncertain", {
      model,
      requestFingerprint: requestFingerprint(input),
      submittedAt: submittedAt.toISOString(),
      hold: { holdId: `hold-${Math.random().toString(36).slice(2)}`, amountMicros: 100_000, currency },
    }),
  );
  return String(caseId);
}

async function counts() {
  const [lines, jobs, entries, cases, attempts] = await Promise.all([
    db.usageLine.findMany({ orderBy: { id: "asc" } }),
    db.unownedJob.findMany({ orderBy: { id: "asc" } }),
    db.ledgerEntry.count(),
    db.case.findMany({ select: { id: true, stage: true, version: true }, orderBy: { id: "asc" } }),
    db.attempt.findMany({ select: { id: true, providerJobId: true }, orderBy: { id: "asc" } }),
  ]);
  return { lines, jobs, entries, cases, attempts };
}

describe("the daily sweep of a provider's job list", () => {
  it("records a job a script created outside the permit path once, and skips jobs an attempt owns or a reference binds", async () => {
    const direct = await createdByScript({ prompt: "a script's test render", seconds: 5 });
    const owned = sim.state.seedJob({ provider: "replicate", model: MODEL, createdAt: Date.now() - HOUR });
    await parkCase(db, shop, parkInput("polling", { model: MODEL, providerJobId: owned.id }));
    const bound = sim.state.seedJob({ provider: "replicate", model: MODEL, createdAt: Date.now() - HOUR });
    const boundCase = await uncertain({ prompt: "bound" }, new Date(Date.now() - HOUR), "USD");
    const { attemptRef } = await db.case.findUniqueOrThrow({ where: { id: boundCase } });
    await db.jobReference.create({ data: { provider: "replicate", providerJobId: bound.id, attemptRef } });

    const [first] = await sweep();
    expect(first).toMatchObject({ provider: "replicate", complete: true });
    expect(first?.added).toBeGreaterThanOrEqual(1);
    const row = await db.unownedJob.findUniqueOrThrow({
      where: { provider_providerJobId: { provider: "replicate", providerJobId: direct } },
    });
    expect(row).toMatchObject({ model: MODEL, resolution: null });
    expect(row.requestFingerprint).toBe(requestFingerprint({ prompt: "a script's test render", seconds: 5 }));
    expect(await db.unownedJob.count({ where: { providerJobId: { in: [owned.id, bound.id] } } })).toBe(0);
    expect(sim.state.requests({ pathIncludes: "/replicate/v1/predictions" }).length).toBeGreaterThan(0);

    const before = await db.unownedJob.count();
    const [again] = await sweep();
    expect(again?.added).toBe(0);
    expect(await db.unownedJob.count()).toBe(before);
    expect(await chargeOf(direct)).toMatchObject({ listed: true, money: [], lines: 0, model: MODEL });
    // Nothing at the provider was created, cancelled or changed by sweeping.
    expect(sim.state.cancelCount()).toBe(0);
  });

  it("matches a waiting line once its job is owned, and a job an operation owns is not made outside the product", async () => {
    const job = sim.state.seedJob({ provider: "replicate", model: MODEL, createdAt: Date.now() - HOUR });
    await importLines([`${job.id},0.07,XUK,2026-12-01T10:00:00Z,${MODEL}`]);
    // A producer reports the job after the import (its outputs already in hand, so the outcome is
    // known): the line still waits as unexplained until the sweep matches it.
    const { caseId } = await parkCase(
      db,
      shop,
      parkInput("delivery", {
        model: MODEL,
        providerJobId: job.id,
        hold: { holdId: `hold-${job.id}`, amountMicros: 100_000, currency: "XUK" },
      }),
    );
    expect(
      await refused(
        markChargeKnownOutside(db, await makeUser(db, ["finance"]), {
          provider: "replicate",
          providerJobId: job.id,
          reason: "a script",
        }),
      ),
    ).toBe("conflict");
    const [swept] = await sweep();
    expect(swept?.rematched).toBeGreaterThanOrEqual(1);
    expect(await db.usageLine.findFirstOrThrow({ where: { providerJobId: job.id } })).toMatchObject({
      unmatchedReason: null,
      adjustmentMicros: -30_000n,
    });
    expect(await db.hold.findFirstOrThrow({ where: { caseId: String(caseId) } })).toMatchObject({
      status: "settled",
      settledMicros: 70_000n,
    });
    expect(await chargeOf(job.id)).toBeUndefined();
  });

  it("asks fal's per-model list once for each model the product knows there", async () => {
    const falModel = "fal-ai/kling-video/v2.5-turbo/pro/text-to-video";
    await parkCase(db, shop, parkInput("submission_uncertain", { provider: "fal", model: falModel }));
    const job = sim.state.seedJob({ provider: "fal", model: falModel, createdAt: Date.now() - HOUR });
    const [swept] = await sweepProviderJobs({ db, adapters: { fal: adapters.fal } }, worker());
    expect(swept).toMatchObject({ provider: "fal", complete: true });
    expect(
      await db.unownedJob.findUnique({ where: { provider_providerJobId: { provider: "fal", providerJobId: job.id } } }),
    ).toMatchObject({ model: falModel, resolution: null });
  });

  it("runs once a day however many workers ask, the first a day after the first tick", async () => {
    const ctx = { db, adapters: { replicate: adapters.replicate } };
    const now = new Date();
    expect(await sweepProviderJobsIfDue(ctx, worker(), { now })).toBeNull();
    const dayLater = new Date(now.getTime() + 24 * HOUR);
    expect(await sweepProviderJobsIfDue(ctx, worker(), { now: dayLater })).not.toBeNull();
    expect(await sweepProviderJobsIfDue(ctx, worker(), { now: dayLater })).toBeNull();
    expect(await sweepProviderJobsIfDue(ctx, worker(), { now: new Date(dayLater.getTime() + HOUR) })).toBeNull();
    expect(
      await sweepProviderJobsIfDue(ctx, worker(), { now: new Date(dayLater.getTime() + 24 * HOUR) }),
    ).not.toBeNull();
    expect(await refused(sweepProviderJobsIfDue(ctx, await makeUser(db, ["admin"])))).toBe("forbidden");
  });
});

describe("the list and attaching through the ownership rule", () => {
  it("offers the uncertain submissions by request, then model and time; attaching gives the line to the case's hold", async () => {
    const submittedAt = new Date(Date.now() - 3 * HOUR);
    const input = { prompt: "a lighthouse at dusk, unexplained", seconds: 5 };
    const exact = await uncertain(input, submittedAt, "XUA");
    const sameModel = await uncertain({ prompt: "another request" }, new Date(submittedAt.getTime() + 120_000), "XUA");
    const otherModel = await uncertain({ prompt: "other model" }, submittedAt, "XUA", "someone/else");
    const job = sim.state.seedJob({
      provider: "replicate",
      model: MODEL,
      input,
      createdAt: submittedAt.getTime() + 5_000,
    });
    await sweep();
    await importLines([`${job.id},0.083417,XUA,${submittedAt.toISOString()},${MODEL}`]);

    const charge = await chargeOf(job.id);
    expect(charge).toMatchObject({ listed: true, lines: 1, money: [{ currency: "XUA", micros: "83417" }] });
    // Uncertain submissions of other tests may be near in time too: this test's three are ranked.
    const ours = [exact, sameModel, otherModel];
    expect(charge?.candidates.map((c) => c.caseId).filter((id) => ours.includes(id))).toEqual([exact, sameModel]);
    expect(charge?.candidates[0]).toMatchObject({
      confidence: 100,
      matched: ["fingerprint", "model", "submitted_within_60s"],
    });
    expect(charge?.candidates.map((c) => c.caseId)).not.toContain(otherModel);

    const finance = await makeUser(db, ["finance"]);
    const result = await attachUnexplainedCharge(db, finance, {
      provider: "replicate",
      providerJobId: job.id,
      caseId: exact,
      evidence: "the provider's copy of the request is ours",
    });
    expect(result).toMatchObject({ stage: "polling", linesMatched: 1 });
    const kase = await db.case.findUniqueOrThrow({ where: { id: exact } });
    expect(kase.providerJobId).toBe(job.id);
    // The line is the case's hold's now: it settles or corrects it through the usage path (decision
    // 073), at once or, where the send's outcome is still open, once it is known.
    const hold = await db.hold.findFirstOrThrow({ where: { caseId: exact } });
    expect(await db.usageLine.findFirstOrThrow({ where: { providerJobId: job.id } })).toMatchObject({
      holdRef: hold.id,
      unmatchedReason: null,
    });
    expect(await db.unownedJob.findFirst({ where: { providerJobId: job.id } })).toMatchObject({
      resolution: "attached",
      attemptRef: kase.attemptRef,
    });
    expect(await chargeOf(job.id)).toBeUndefined();
    expect(await db.auditEvent.count({ where: { kind: "unexplained_charge_attached" } })).toBeGreaterThan(0);

    // Attached already: refused as such, nothing changes.
    const before = await counts();
    expect(
      await refused(
        attachUnexplainedCharge(db, finance, {
          provider: "replicate",
          providerJobId: job.id,
          caseId: sameModel,
          evidence: "again",
        }),
      ),
    ).toBe("conflict");
    expect(await counts()).toEqual(before);
  });

  it("refuses a job another operation came to own, through the ownership rule, and leaves the case uncertain", async () => {
    const submittedAt = new Date(Date.now() - 5 * HOUR);
    const mine = await uncertain({ prompt: "mine" }, submittedAt, "XUB");
    const job = `script-job-${Math.random().toString(36).slice(2)}`;
    await importLines([`${job},0.05,XUB,${submittedAt.toISOString()},${MODEL}`]);
    // Another producer's report names the job after the import: the line still waits unexplained.
    await parkCase(db, producer("other-shop"), parkInput("polling", { model: MODEL, providerJobId: job }));
    const before = await counts();
    const error = await attachUnexplainedCharge(db, await makeUser(db, ["finance"]), {
      provider: "replicate",
      providerJobId: job,
      caseId: mine,
      evidence: "looks like ours",
    }).catch((e: unknown) => e);
    expect(codeOf(error)).toBe("provider_job_in_use");
    const after = await counts();
    expect(after.cases).toEqual(before.cases);
    expect(after.attempts).toEqual(before.attempts);
    expect(after.lines).toEqual(before.lines);
    expect(after.entries).toBe(before.entries);
  });
});

describe("a charge made outside the product", () => {
  it("is booked so the ledger equals the imported lines per provider, to the micro-unit", async () => {
    const finance = await makeUser(db, ["finance"]);
    const { caseId } = await parkCase(
      db,
      shop,
      // At delivery the job is known completed, so its line settles the hold at once (decision 077).
      parkInput("delivery", { model: MODEL, hold: { holdId: "hold-xuc", amountMicros: 100_000, currency: "XUC" } }),
    );
    const paid = (await db.case.findUniqueOrThrow({ where: { id: String(caseId) } })).providerJobId ?? "";
    const retry = `retry-${Math.random().toString(36).slice(2)}`;
    const at = "2026-12-01T10:00:00Z";
    await importLines([
      `${paid},0.08,XUC,${at},${MODEL}`,
      `${retry},0.05,XUC,${at},${MODEL}`,
      `${retry},0.010001,XUC,${at},${MODEL}`,
    ]);
    const xuc = async () =>
      (await ledgerVersusInvoice(db, finance, { provider: "replicate" })).find((r) => r.currency === "XUC");
    expect(await xuc()).toMatchObject({
      invoiceMicros: "140001",
      ledgerMicros: "80000",
      unexplainedMicros: "60001",
      waitingMicros: "0",
      differenceMicros: "60001",
    });

    const done = await markChargeKnownOutside(db, finance, {
      provider: "replicate",
      providerJobId: retry,
      reason: "a duplicate our client's hidden retry paid for",
    });
    expect(done).toMatchObject({ lines: 2, booked: [{ currency: "XUC", micros: "60001" }] });
    expect(await xuc()).toMatchObject({ invoiceMicros: "140001", ledgerMicros: "140001", differenceMicros: "0" });
    const outside = await db.ledgerEntry.findMany({
      where: { kind: "outside_charge", provider: "replicate", currency: "XUC" },
      orderBy: { amountMicros: "desc" },
    });
    expect(outside.map((e) => [e.holdRef, e.amountMicros])).toEqual([
      [null, 50_000n],
      [null, 10_001n],
    ]);
    expect(await chargeOf(retry)).toBeUndefined();
    // The ledger export lists them, with no operation, producer or hold; a scoped person's does not.
    const today = new Date().toISOString().slice(0, 10);
    const exported = await exportFinanceCsv(db, finance, { from: today, to: today, kind: "ledger" });
    expect(
      exported.body.split("\n").filter((row) => row.includes("outside_charge") && row.includes("XUC")),
    ).toHaveLength(2);
    const scoped = { ...finance, producers: [shop.name] };
    const theirs = await exportFinanceCsv(db, scoped, { from: today, to: today, kind: "ledger" });
    expect(theirs.body).not.toContain("outside_charge");

    // Explained already: refused as such, nothing changes.
    const before = await counts();
    expect(
      await refused(
        markChargeKnownOutside(db, finance, { provider: "replicate", providerJobId: retry, reason: "again!" }),
      ),
    ).toBe("conflict");
    expect(await counts()).toEqual(before);

    // A later line of the same job is booked the same way on import, and the two still agree.
    const later = await importLines([`${retry},0.002,XUC,2026-12-02T10:00:00Z,${MODEL}`]);
    expect(later).toMatchObject({ added: 1, knownOutside: 1, unexplained: 0 });
    expect(await xuc()).toMatchObject({ invoiceMicros: "142001", ledgerMicros: "142001", differenceMicros: "0" });
  });

  it("explains a listed job with no line yet, and a line that names no job", async () => {
    const finance = await makeUser(db, ["finance"]);
    const listed = await createdByScript({ prompt: "a test from a script" });
    await sweep();
    await markChargeKnownOutside(db, finance, {
      provider: "replicate",
      providerJobId: listed,
      reason: "test from a script",
    });
    expect(await db.unownedJob.findFirst({ where: { providerJobId: listed } })).toMatchObject({
      resolution: "known_outside",
      reason: "test from a script",
    });
    await importUsageFile(db, finance, {
      provider: "veo",
      format: "gcp_billing",
      fileName: "billing.csv",
      content: "sku.description,cost,currency,usage_start_time\nVeo video generation,1.5,XUD,2026-12-01 10:00:00 UTC\n",
    });
    const line = await db.usageLine.findFirstOrThrow({ where: { provider: "veo", currency: "XUD" } });
    const view = await listUnexplainedCharges(db, finance, { provider: "veo", page: 1, pageSize: 100 });
    expect(view.charges.find((c) => c.usageLineId === line.id)).toMatchObject({ providerJobId: null, candidates: [] });
    await markChargeKnownOutside(db, finance, {
      provider: "veo",
      usageLineId: line.id,
      reason: "the studio's own use",
    });
    expect(
      (await ledgerVersusInvoice(db, finance, { provider: "veo" })).find((r) => r.currency === "XUD"),
    ).toMatchObject({
      differenceMicros: "0",
    });
  });
});

describe("who may act, and bad input", () => {
  it("refuses other roles and a person limited to some producers, with nothing changed", async () => {
    const job = `who-${Math.random().toString(36).slice(2)}`;
    await importLines([`${job},0.07,XUE,2026-12-01T10:00:00Z,${MODEL}`]);
    const caseId = await uncertain({ prompt: "who" }, new Date(), "XUE");
    const limited = { ...(await makeUser(db, ["finance"])), producers: [shop.name] };
    const people = [
      await makeUser(db, ["operator"]),
      await makeUser(db, ["reviewer"]),
      await makeUser(db, ["viewer"]),
      limited,
    ];
    const before = await counts();
    for (const person of people) {
      expect(
        await refused(
          markChargeKnownOutside(db, person, { provider: "replicate", providerJobId: job, reason: "a script" }),
        ),
      ).toBe("forbidden");
      expect(
        await refused(
          attachUnexplainedCharge(db, person, { provider: "replicate", providerJobId: job, caseId, evidence: "ours" }),
        ),
      ).toBe("forbidden");
      expect(await refused(ledgerVersusInvoice(db, person))).toBe("forbidden");
    }
    expect(await listUnexplainedCharges(db, limited, { page: 1, pageSize: 10 })).toMatchObject({
      visible: false,
      total: 0,
      charges: [],
    });
    expect(await counts()).toEqual(before);
  });

  it("the routes answer bad input with a clear 400 and a wrong role with 403, changing nothing", async () => {
    const job = `route-${Math.random().toString(36).slice(2)}`;
    await importLines([`${job},0.07,XUF,2026-12-01T10:00:00Z,${MODEL}`]);
    const financeToken = (await createAccessToken(db, await makeUser(db, ["finance"]), { kind: "personal", name: "f" }))
      .secret;
    const reviewerToken = (
      await createAccessToken(db, await makeUser(db, ["reviewer"]), { kind: "personal", name: "r" })
    ).secret;
    const handler = (key: string) => {
      const route = API_ROUTES.find((r) => routeKey(r) === key);
      if (!route) throw new Error(`no route ${key}`);
      return route.handle;
    };
    const outside = handler("POST /api/v1/finance/unexplained-charges/known-outside");
    const attach = handler("POST /api/v1/finance/unexplained-charges/attach");
    const before = await counts();
    const noReason = await callRoute(outside, {
      token: financeToken,
      body: { provider: "replicate", providerJobId: job },
    });
    expect(noReason.status).toBe(400);
    expect(noReason.json.error?.code).toBe("invalid_request");
    const both = await callRoute(outside, {
      token: financeToken,
      body: { provider: "replicate", providerJobId: job, usageLineId: crypto.randomUUID(), reason: "a script" },
    });
    expect(both.status).toBe(400);
    const badProvider = await callRoute(attach, {
      token: financeToken,
      body: { provider: "Replicate", providerJobId: job, caseId: "nope", evidence: "x" },
    });
    expect(badProvider.status).toBe(400);
    expect(JSON.stringify(badProvider.json)).not.toMatch(/at .*\.ts/);
    const wrongRole = await callRoute(outside, {
      token: reviewerToken,
      body: { provider: "replicate", providerJobId: job, reason: "a script" },
    });
    expect(wrongRole.status).toBe(403);
    const unknown = await callRoute(outside, {
      token: financeToken,
      body: { provider: "replicate", providerJobId: "never-seen", reason: "a script" },
    });
    expect(unknown.status).toBe(404);
    expect(await counts()).toEqual(before);
    const list = await callRoute(handler("GET /api/v1/finance/unexplained-charges"), {
      token: financeToken,
      query: { provider: "replicate", pageSize: "100" },
    });
    expect(list.status).toBe(200);
    expect((list.json.charges as { providerJobId: string }[]).some((c) => c.providerJobId === job)).toBe(true);
  });
});

describe("the metric and the alert rule", () => {
  it("count every unexplained charge by provider, and stop counting one once explained", async () => {
    const job = `metric-${Math.random().toString(36).slice(2)}`;
    await importLines([`${job},0.25,XUG,2026-12-01T10:00:00Z,${MODEL}`], "runway");
    const now = new Date();
    const read = async () => {
      const families = await metricsSnapshot(db, now);
      const count = families.find((f) => f.name === "recovery_unexplained_charges");
      const micros = families.find((f) => f.name === "recovery_unexplained_charges_micros");
      const alert = await alertFigures(db, { kind: "unexplained_charges", windowMinutes: 60 }, now);
      return {
        runway: count?.samples.find((s) => s.labels?.provider === "runway")?.value ?? 0,
        xug: micros?.samples.find((s) => s.labels?.currency === "XUG")?.value ?? 0,
        alert: alert.count,
        alertXug: alert.held.find((h) => h.currency === "XUG")?.micros ?? "0",
      };
    };
    const figures = await unexplainedFigures(db);
    const total = figures.byProvider.reduce((sum, p) => sum + p.count, 0);
    const first = await read();
    expect(first).toMatchObject({ xug: 250_000, alertXug: "250000", alert: total });
    expect(first.runway).toBeGreaterThanOrEqual(1);
    await markChargeKnownOutside(db, await makeUser(db, ["admin"]), {
      provider: "runway",
      providerJobId: job,
      reason: "a render the studio paid for itself",
    });
    const second = await read();
    expect(second).toMatchObject({ runway: first.runway - 1, xug: 0, alert: first.alert - 1, alertXug: "0" });
  });
});
