import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_ROUTES, routeKey } from "@/lib/api/routes";
import { simulatorAdapters } from "@/lib/providers";
import type { ProviderName } from "@/lib/providers/types";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { resolveHold } from "@/lib/services/hold/resolve-hold";
import { importProviderCosts } from "@/lib/services/usage/import-provider-costs";
import { importUsageFile } from "@/lib/services/usage/import-usage-file";
import { usageGap } from "@/lib/services/usage/usage-gap";
import { type RunningSimulator, startSimulator } from "@/verification/simulator";
import { makeUser, producer } from "./fixtures";
import { callRoute } from "./helpers/call-route";
import { usageCsv as csv, ledgerCharge, parkedHold } from "./helpers/usage";
import { openTestDb } from "./setup/test-db";

// Decision 073: a provider's usage line settles or corrects the hold of the job it names, through
// the money writer, once; unmatched lines stay listed. Each test uses its own currency so the
// tests in this file (one database) never see each other's holds in the gap view.
const { db } = openTestDb();
const shop = producer("usage-shop");
const otherShop = producer("usage-other-shop");
const codeOf = (error: unknown) => (error as { code?: string } | undefined)?.code;
const refused = (promise: Promise<unknown>) => promise.then(() => "no error", codeOf);

const heldJob = (
  currency: string,
  amountMicros: number,
  who = shop,
  provider: ProviderName = "replicate",
  job?: string,
) => parkedHold(db, { currency, amountMicros, who, provider, ...(job ? { job } : {}) });
const chargedOf = (holdRef: string) => ledgerCharge(db, holdRef);

async function counts() {
  const [lines, entries, audits] = await Promise.all([
    db.usageLine.count(),
    db.ledgerEntry.count(),
    db.auditEvent.count(),
  ]);
  return { lines, entries, audits };
}

describe("a usage line matched to its job's hold", () => {
  it("posts the difference to a hold settled at the reservation as an adjustment; the ledger equals the line", async () => {
    const finance = await makeUser(db, ["finance"]);
    const { hold, jobId, caseId } = await heldJob("XUA", 100_000);
    await resolveHold(db, finance, hold.id, {
      kind: "settle",
      chargeMicros: 100_000,
      note: "completed",
      evidence: "status check",
    });
    const summary = await importUsageFile(db, finance, {
      provider: "replicate",
      format: "generic",
      fileName: "replicate-usage.csv",
      content: csv([`${jobId},0.083417,XUA,2026-12-01T10:00:00Z`]),
    });
    expect(summary).toMatchObject({ read: 1, added: 1, matched: 1, unexplained: 0 });
    expect(summary.lines[0]).toMatchObject({
      differenceMicros: "-16583",
      chargedBeforeMicros: "100000",
      chargedAfterMicros: "83417",
    });
    expect(await chargedOf(hold.id)).toBe(83_417n);
    const entries = await db.ledgerEntry.findMany({ where: { holdRef: hold.id }, orderBy: { createdAt: "asc" } });
    expect(entries.map((e) => [e.kind, e.amountMicros])).toEqual([
      ["reserve", 100_000n],
      ["settle", 100_000n],
      ["adjustment", -16_583n],
    ]);
    expect(entries[2]?.usageLineRef).toBe(
      (await db.usageLine.findFirstOrThrow({ where: { providerJobId: jobId } })).id,
    );
    const audit = await db.auditEvent.findFirstOrThrow({ where: { caseId, kind: "charge_corrected" } });
    expect(audit.after).toMatchObject({ realMicros: "83417", differenceMicros: "-16583" });
    const gap = await usageGap(db, finance, { days: 30 });
    expect(gap.rows.filter((row) => row.currency === "XUA")).toEqual([
      expect.objectContaining({
        provider: "replicate",
        producer: "usage-shop",
        jobs: 1,
        reservedMicros: "100000",
        chargedMicros: "83417",
        gapMicros: "-16583",
      }),
    ]);
  });

  it("settles a hold still held at the line's charge: over the hold, the excess is a flagged overage", async () => {
    const finance = await makeUser(db, ["finance"]);
    const { hold, jobId, caseId } = await heldJob("XBA", 100_000);
    const summary = await importUsageFile(db, finance, {
      provider: "replicate",
      format: "generic",
      fileName: "usage.csv",
      content: csv([`${jobId},0.125,XBA,2026-12-01 10:00:00`]),
    });
    // The difference finance reads is to the reservation a completion would have charged.
    expect(summary.lines[0]).toMatchObject({
      chargedBeforeMicros: "100000",
      chargedAfterMicros: "125000",
      differenceMicros: "25000",
    });
    expect(await db.hold.findUniqueOrThrow({ where: { id: hold.id } })).toMatchObject({
      status: "settled",
      settledMicros: 100_000n,
    });
    const entries = await db.ledgerEntry.findMany({ where: { holdRef: hold.id } });
    expect(entries.find((e) => e.kind === "overage")).toMatchObject({ amountMicros: 25_000n, flagged: true });
    expect(await chargedOf(hold.id)).toBe(125_000n);
    // As a person's settle does, the case no longer counts the hold as held (DESIGN rule 13), and
    // the hold's one resolution has its one audit event (decision 079).
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).heldMicros).toBe(0n);
    const settles = await db.auditEvent.findMany({ where: { caseId, kind: "hold_settled" } });
    expect(settles).toEqual([
      expect.objectContaining({
        before: { holdId: hold.holdId, status: "held", amountMicros: 100_000 },
        after: { status: "settled", settledMicros: 100_000, releasedMicros: 0 },
      }),
    ]);
  });

  it("settles a hold still held below the reservation: the rest is released, decided by the importing finance person", async () => {
    const finance = await makeUser(db, ["finance"]);
    const { hold, jobId, caseId } = await heldJob("XBC", 100_000);
    await importUsageFile(db, finance, {
      provider: "replicate",
      format: "generic",
      fileName: "usage.csv",
      content: csv([`${jobId},0.06,XBC,2026-12-01 10:00:00`]),
    });
    expect(await db.hold.findUniqueOrThrow({ where: { id: hold.id } })).toMatchObject({
      status: "settled",
      settledMicros: 60_000n,
      releasedMicros: 40_000n,
      decidedById: finance.userId,
    });
    expect(await chargedOf(hold.id)).toBe(60_000n);
    const settles = await db.auditEvent.findMany({ where: { caseId, kind: "hold_settled" } });
    expect(settles.map((event) => event.after)).toEqual([
      { status: "settled", settledMicros: 60_000, releasedMicros: 40_000 },
    ]);
  });

  it("the same export imported twice changes nothing; a second line for the job adds only its own amount", async () => {
    const finance = await makeUser(db, ["finance"]);
    const { hold, jobId } = await heldJob("XBB", 500_000);
    await resolveHold(db, finance, hold.id, {
      kind: "settle",
      chargeMicros: 500_000,
      note: "completed",
      evidence: "status check",
    });
    const file = {
      provider: "replicate",
      format: "generic" as const,
      fileName: "a.csv",
      content: csv([`${jobId},0.30,XBB,2026-12-01T10:00:00Z`]),
    };
    await importUsageFile(db, finance, file);
    const before = await counts();
    const again = await importUsageFile(db, finance, { ...file, fileName: "a-again.csv" });
    expect(again).toMatchObject({ read: 1, added: 0, alreadyImported: 1, matched: 0 });
    const after = await counts();
    expect({ lines: after.lines, entries: after.entries }).toEqual({ lines: before.lines, entries: before.entries });
    expect(await chargedOf(hold.id)).toBe(300_000n);
    // A later export overlapping the first: the known line is skipped, the new one adds its own charge.
    await importUsageFile(db, finance, {
      ...file,
      fileName: "b.csv",
      content: csv([`${jobId},0.30,XBB,2026-12-01T10:00:00Z`, `${jobId},0.05,XBB,2026-12-01T11:00:00Z`]),
    });
    expect(await chargedOf(hold.id)).toBe(350_000n);
  });

  it("a line in another currency than its hold, or naming no known job, stays unexplained and counted", async () => {
    const finance = await makeUser(db, ["finance"]);
    const { hold, jobId } = await heldJob("XBC", 100_000);
    const summary = await importUsageFile(db, finance, {
      provider: "replicate",
      format: "generic",
      fileName: "c.csv",
      content: csv([`${jobId},0.10,XBD,2026-12-01T10:00:00Z`, "job-nobody-knows,0.20,XBC,2026-12-01T10:00:00Z"]),
    });
    expect(summary).toMatchObject({ matched: 0, unexplained: 2 });
    expect(summary.lines.map((line) => line.unmatchedReason)).toEqual(["currency_differs", "no_job"]);
    expect(await db.hold.findUniqueOrThrow({ where: { id: hold.id } })).toMatchObject({ status: "held" });
    const gap = await usageGap(db, finance, { days: 30 });
    expect(gap.unexplained.count).toBeGreaterThanOrEqual(2);
    expect(gap.unexplained.lines.map((line) => line.providerJobId)).toEqual(
      expect.arrayContaining([jobId, "job-nobody-knows"]),
    );
  });

  it("reads Google Cloud's billing export: its lines name no job, so they stay unexplained", async () => {
    const admin = await makeUser(db, ["admin"]);
    const content =
      "billing_account_id,service.description,sku.description,usage_start_time,usage_end_time,project.id,cost,currency\n" +
      '012345-ABCDEF-678901,Vertex AI,"Veo 3 video generation, per second",2026-12-01 00:00:00 UTC,2026-12-01 01:00:00 UTC,shop-project,4.000000,XBE\n';
    const summary = await importUsageFile(db, admin, {
      provider: "veo",
      format: "gcp_billing",
      fileName: "billing.csv",
      content,
    });
    expect(summary).toMatchObject({ added: 1, unexplained: 1 });
    expect(await db.usageLine.findFirstOrThrow({ where: { currency: "XBE" } })).toMatchObject({
      providerAccount: "012345-ABCDEF-678901",
      model: "Veo 3 video generation, per second",
      amountMicros: 4_000_000n,
      providerJobId: null,
    });
  });

  it("a file with a line it cannot read imports nothing and names the line", async () => {
    const finance = await makeUser(db, ["finance"]);
    const before = await counts();
    const error = await importUsageFile(db, finance, {
      provider: "replicate",
      format: "generic",
      fileName: "bad.csv",
      content: csv(["job-1,0.10,XBF,2026-12-01T10:00:00Z", "job-2,1e3,XBF,2026-12-01T10:00:00Z"]),
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "invalid_request", extra: { issues: [{ path: "line 3" }] } });
    expect(await counts()).toEqual(before);
  });
});

describe("who may import and read", () => {
  it("refuses operators, reviewers and a person limited to some producers; the route answers 403", async () => {
    const file = {
      provider: "replicate",
      format: "generic" as const,
      fileName: "x.csv",
      content: csv(["j,0.1,XBG,2026-12-01T10:00:00Z"]),
    };
    const people = [await makeUser(db, ["operator"]), await makeUser(db, ["reviewer"]), await makeUser(db, ["viewer"])];
    const token = (await createAccessToken(db, await makeUser(db, ["reviewer"]), { kind: "personal", name: "usage" }))
      .secret;
    const before = await counts();
    for (const person of people) expect(await refused(importUsageFile(db, person, file))).toBe("forbidden");
    // A finance person limited to one producer (decision 035), as the session loads them.
    const limited = { ...(await makeUser(db, ["finance"])), producers: [shop.name] };
    expect(await refused(importUsageFile(db, limited, file))).toBe("forbidden");
    const route = API_ROUTES.find((r) => routeKey(r) === "POST /api/v1/finance/usage-imports");
    const answer = await callRoute(
      route?.handle ??
        (() => {
          throw new Error("no route");
        }),
      { token, body: file },
    );
    expect(answer.status).toBe(403);
    expect(await counts()).toEqual(before);
  });

  it("the gap view shows a person limited to some producers only theirs, and no unexplained lines", async () => {
    const finance = await makeUser(db, ["finance"]);
    const mine = await heldJob("XBH", 100_000, shop);
    const theirs = await heldJob("XBH", 100_000, otherShop);
    await importUsageFile(db, finance, {
      provider: "replicate",
      format: "generic",
      fileName: "h.csv",
      content: csv([`${mine.jobId},0.09,XBH,2026-12-01T10:00:00Z`, `${theirs.jobId},0.07,XBH,2026-12-01T10:00:00Z`]),
    });
    const everyone = await usageGap(db, finance, { days: 30 });
    expect(
      everyone.rows
        .filter((row) => row.currency === "XBH")
        .map((row) => row.producer)
        .sort(),
    ).toEqual([otherShop.name, shop.name]);
    const limited = { ...(await makeUser(db, ["finance"])), producers: [shop.name] };
    const view = await usageGap(db, limited, { days: 30 });
    expect(view.rows.filter((row) => row.currency === "XBH").map((row) => row.producer)).toEqual([shop.name]);
    expect(view.unexplained).toMatchObject({ visible: false, count: 0, lines: [] });
    expect(await refused(usageGap(db, await makeUser(db, ["operator"]), { days: 30 }))).toBe("forbidden");
  });
});

describe("a Runway task's own cost, read from its API through the simulator", () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, token: "sim-token", timings: { queuedMs: 0, runningMs: 0 } });
  });
  afterAll(() => sim?.stop());

  it("settles the task's hold at cost.credits x $0.01 over HTTP, once however often it is read", async () => {
    const adapter = simulatorAdapters(
      sim.url,
      { retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 50, perAttemptTimeoutMs: 2_000 } },
      "sim-token",
    ).runway;
    const seeded = sim.state.seedJob({ provider: "runway", model: "gen4_turbo", outcome: "succeeded" });
    const { hold } = await heldJob("USD", 1_000_000, shop, "runway", seeded.id);
    const finance = await makeUser(db, ["finance"]);
    const first = await importProviderCosts(db, finance, adapter, { limit: 200 });
    const line = first.lines.find((l) => l.providerJobId === seeded.id);
    // The simulator prices a 5 s gen4_turbo task at 25 credits, Runway's 5 a second: $0.25.
    expect(line).toMatchObject({ outcome: "matched", amountMicros: "250000", currency: "USD" });
    expect(await chargedOf(hold.id)).toBe(250_000n);
    expect(await db.hold.findUniqueOrThrow({ where: { id: hold.id } })).toMatchObject({
      status: "settled",
      releasedMicros: 750_000n,
    });
    expect(sim.state.requests({ pathIncludes: `/runway/v1/tasks/${seeded.id}` }).length).toBeGreaterThan(0);
    const again = await importProviderCosts(db, finance, adapter, { limit: 200 });
    expect(again.lines.find((l) => l.providerJobId === seeded.id)).toBeUndefined();
    expect(await chargedOf(hold.id)).toBe(250_000n);
    expect(sim.state.stats().creates).toMatchObject({ total: 0 });
  });
});
