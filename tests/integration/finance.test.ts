import { describe, expect, it } from "vitest";
import type { Stage } from "@/lib/domain/stages";
import type { ProviderName } from "@/lib/providers/types";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { parkCase } from "@/lib/services/case/park-case";
import { reconcileCase } from "@/lib/services/case/reconcile-case";
import { exportFinanceCsv } from "@/lib/services/finance/export-ledger";
import { getHeldByAge } from "@/lib/services/finance/finance-aging";
import { getExposure } from "@/lib/services/finance/finance-exposure";
import { getFinanceTotals } from "@/lib/services/finance/finance-totals";
import { listHolds } from "@/lib/services/hold/list-holds";
import { type HoldDecision, resolveHold } from "@/lib/services/hold/resolve-hold";
import { listPendingReplacementRequests } from "@/lib/services/replacement/list-replacement-requests";
import { requestReplacement } from "@/lib/services/replacement/request-replacement";
import { exportQuerySchema } from "@/lib/validation/finance";
import { makeUser, parkInput, producer } from "./fixtures";
import { backdateLedger } from "./helpers/backdate-ledger";
import { openOwnerDb, openTestDb } from "./setup/test-db";

// The Finance page's reads: totals in SQL per currency/status/provider/model, exposure, aging,
// the CSV export, and that only finance may read any of it. Each test uses its own currency so
// the tests in this file (which share one database) never see each other's holds.
const { db } = openTestDb();
const { db: owner } = openOwnerDb();
const shop = producer();
const codeOf = (error: unknown) => (error as { code?: string } | undefined)?.code;
const refused = (promise: Promise<unknown>) => promise.then(() => "no error", codeOf);
const settle = (chargeMicros: number): HoldDecision => ({
  kind: "settle",
  chargeMicros,
  note: "invoice",
  evidence: "usage",
});
const release: HoldDecision = { kind: "release", note: "no charge", evidence: "usage export, 0 s" };

async function park(
  stage: Stage,
  hold: { amountMicros: number; currency: string },
  extra: { provider?: ProviderName; model?: string; operationId?: string } = {},
  who = shop,
) {
  const input = parkInput(stage, extra);
  const { caseId } = await parkCase(db, who, { ...input, hold: { ...input.hold, ...hold } });
  const row = await db.hold.findFirstOrThrow({ where: { caseId } });
  return { caseId, holdRef: row.id };
}

describe("finance totals", () => {
  it("adds up a mix of partial settle, overage, release and open holds per currency, provider and model", async () => {
    const finance = await makeUser(db, ["finance"]);
    const a = { provider: "replicate", model: "m-one" } as const;
    const b = { provider: "fal", model: "m-two" } as const;
    const partial = await park("polling", { amountMicros: 100_000, currency: "USD" }, a);
    const over = await park("polling", { amountMicros: 100_000, currency: "USD" }, a);
    const released = await park("generation_failed", { amountMicros: 50_000, currency: "USD" }, b);
    await park("delivery", { amountMicros: 70_000, currency: "USD" }, b);
    await park("submission_uncertain", { amountMicros: 200_000, currency: "EUR" }, a);
    const exact = await park("polling", { amountMicros: 30_000, currency: "EUR" }, a);
    await resolveHold(db, finance, partial.holdRef, settle(40_000));
    await resolveHold(db, finance, over.holdRef, settle(130_000));
    await resolveHold(db, finance, released.holdRef, release);
    await resolveHold(db, finance, exact.holdRef, settle(30_000));

    const totals = await getFinanceTotals(db, finance);
    const usd = totals.byCurrency.find((t) => t.currency === "USD");
    expect(usd).toEqual({
      currency: "USD",
      held: { count: 1, micros: "70000" },
      settled: { count: 2, partial: 1, micros: "140000" },
      released: { count: 1, micros: "110000" },
      overage: { count: 1, micros: "30000" },
      lateCharged: { count: 0, micros: "0" },
      corrected: { count: 0, micros: "0" },
      // What was charged: settled and the overage beyond the holds (decision 077).
      chargedMicros: "170000",
      reservedMicros: "320000",
    });
    // Every reserved micro-unit is held, settled or released; overage is on top.
    expect(usd && BigInt(usd.held.micros) + BigInt(usd.settled.micros) + BigInt(usd.released.micros)).toBe(320_000n);
    expect(totals.byCurrency.find((t) => t.currency === "EUR")).toMatchObject({
      held: { count: 1, micros: "200000" },
      settled: { count: 1, partial: 0, micros: "30000" },
      released: { count: 0, micros: "0" },
      overage: { count: 0, micros: "0" },
    });
    const group = (currency: string, provider: string, model: string) =>
      totals.byProviderModel.find((t) => t.currency === currency && t.provider === provider && t.model === model);
    expect(group("USD", "replicate", "m-one")).toMatchObject({
      held: { count: 0, micros: "0" },
      settled: { count: 2, micros: "140000" },
      released: { count: 0, micros: "60000" },
      overage: { count: 1, micros: "30000" },
    });
    expect(group("USD", "fal", "m-two")).toMatchObject({
      held: { count: 1, micros: "70000" },
      settled: { count: 0, micros: "0" },
      released: { count: 1, micros: "50000" },
    });
    expect(group("EUR", "replicate", "m-one")).toMatchObject({
      held: { micros: "200000" },
      settled: { micros: "30000" },
    });
    expect(group("EUR", "fal", "m-two")).toBeUndefined();
  });

  it("groups open holds by age", async () => {
    const finance = await makeUser(db, ["finance"]);
    await park("polling", { amountMicros: 11_000, currency: "CHF" });
    await park("polling", { amountMicros: 22_000, currency: "CHF" });
    const soon = (await getHeldByAge(db, finance)).filter((r) => r.currency === "CHF");
    expect(soon).toMatchObject([{ bucket: "lt_1h", count: 2, micros: "33000" }]);
    const later = await getHeldByAge(db, finance, new Date(Date.now() + 3 * 86_400_000));
    expect(later.filter((r) => r.currency === "CHF")).toMatchObject([{ bucket: "lt_7d", count: 2, micros: "33000" }]);
  });
});

describe("exposure", () => {
  it("counts only the held money of open uncertain submissions", async () => {
    const finance = await makeUser(db, ["finance"]);
    const reviewer = await makeUser(db, ["reviewer"]);
    const gbp = (amountMicros: number, stage: Stage = "submission_uncertain") =>
      park(stage, { amountMicros, currency: "GBP" });
    const open = await gbp(1_000);
    const attached = await gbp(20_000);
    const closed = await gbp(300_000);
    const releasedHold = await gbp(4_000_000);
    await gbp(50_000_000, "polling");
    await reconcileCase(db, reviewer, attached.caseId, {
      verdict: "attach",
      providerJobId: "job-x",
      evidence: "found",
    });
    await reconcileCase(
      db,
      reviewer,
      closed.caseId,
      { verdict: "no_job", evidence: "no job in the window" },
      { now: new Date("2100-01-01T00:00:00Z") },
    );
    await acceptFailure(db, reviewer, closed.caseId, { evidence: "not accepted by the provider" });
    // Still uncertain, so it cannot be released: finance writes it off (DESIGN rule 18).
    await resolveHold(db, finance, releasedHold.holdRef, { ...release, kind: "write_off" });

    expect((await getExposure(db, finance)).filter((e) => e.currency === "GBP")).toMatchObject([
      { currency: "GBP", count: 1, micros: "1000" },
    ]);
    const held = await listHolds(db, finance, { status: "held", limit: 200 });
    const flagged = held.items.filter((h) => h.currency === "GBP" && h.exposure).map((h) => h.id);
    expect(flagged).toEqual([open.holdRef]);
    // A case closed while still recorded as uncertain is not exposure either: only open cases count.
    await db.$executeRaw`UPDATE cases SET state = 'resolved' WHERE id = ${open.caseId}::uuid`;
    expect((await getExposure(db, finance)).filter((e) => e.currency === "GBP")).toEqual([]);
  });
});

describe("holds list and replacement requests", () => {
  it("pages through holds of one status", async () => {
    const finance = await makeUser(db, ["finance"]);
    for (let i = 0; i < 5; i++) await park("polling", { amountMicros: 1_000 + i, currency: "JPY" });
    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await listHolds(db, finance, { status: "held", limit: 2, cursor });
      seen.push(...page.items.filter((h) => h.currency === "JPY").map((h) => h.amountMicros));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual([1_000, 1_001, 1_002, 1_003, 1_004]);
    expect(await refused(listHolds(db, finance, { status: "held", limit: 2, cursor: "forged" }))).toBe(
      "invalid_request",
    );
  });

  it("lists one producer's holds, open and needing a decision, when a producer is given", async () => {
    const finance = await makeUser(db, ["finance"]);
    const reviewer = await makeUser(db, ["reviewer"]);
    const agency = producer("list-agency-shop");
    const theirs = await park("generation_failed", { amountMicros: 7_000, currency: "NOK" }, {}, agency);
    const ours = await park("generation_failed", { amountMicros: 8_000, currency: "NOK" });
    // Both cases resolved with their holds still open: rule 13's "needs a decision".
    for (const { caseId } of [theirs, ours]) await acceptFailure(db, reviewer, caseId, { evidence: "policy" });
    const refs = async (query: { view?: "needs_decision"; producer?: string }) =>
      (await listHolds(db, finance, { status: "held", limit: 200, ...query })).items
        .filter((h) => h.currency === "NOK")
        .map((h) => h.id);
    expect(await refs({ producer: agency.name })).toEqual([theirs.holdRef]);
    expect(await refs({ view: "needs_decision", producer: agency.name })).toEqual([theirs.holdRef]);
    expect(await refs({ view: "needs_decision", producer: shop.name })).toEqual([ours.holdRef]);
    expect((await refs({})).sort()).toEqual([theirs.holdRef, ours.holdRef].sort());
  });

  it("lists pending replacement requests with the requester and the original hold", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const finance = await makeUser(db, ["finance"]);
    const failed = await park("generation_failed", { amountMicros: 120_000, currency: "AUD" });
    const { requestId } = await requestReplacement(db, reviewer, failed.caseId, { evidence: "content filter" });
    const { items } = await listPendingReplacementRequests(db, finance);
    expect(items.find((r) => r.id === requestId)).toMatchObject({
      requestedById: reviewer.userId,
      requestedBy: reviewer.email,
      amountMicros: 120_000,
      currency: "AUD",
      originalHold: { amountMicros: 120_000, status: "held" },
      expired: false,
    });
    const later = await listPendingReplacementRequests(db, finance, new Date(Date.now() + 4 * 86_400_000));
    expect(later.items.find((r) => r.id === requestId)?.expired).toBe(true);
  });
});

describe("who may read finance", () => {
  it("refuses operators, reviewers, admins and producers in every finance read", async () => {
    const query = exportQuerySchema.parse({ from: "2026-01-01", to: "2026-01-31", kind: "holds" });
    const reads = [
      (actor: Parameters<typeof getFinanceTotals>[1]) => getFinanceTotals(db, actor),
      (actor: Parameters<typeof getFinanceTotals>[1]) => getHeldByAge(db, actor),
      (actor: Parameters<typeof getFinanceTotals>[1]) => getExposure(db, actor),
      (actor: Parameters<typeof getFinanceTotals>[1]) => listHolds(db, actor, { status: "held", limit: 10 }),
      (actor: Parameters<typeof getFinanceTotals>[1]) => listPendingReplacementRequests(db, actor),
      (actor: Parameters<typeof getFinanceTotals>[1]) => exportFinanceCsv(db, actor, query),
    ];
    for (const roles of [["operator"], ["reviewer"], ["admin"], ["operator", "reviewer", "admin"]] as const) {
      const user = await makeUser(db, [...roles]);
      for (const read of reads) expect(await refused(read(user))).toBe("forbidden");
    }
    for (const read of reads) expect(await refused(read(shop))).toBe("forbidden");
    const finance = await makeUser(db, ["finance"]);
    for (const read of reads) expect(await refused(read(finance))).toBe("no error");
  });
});

/** Enough of RFC 4180 to read back what the export wrote (quoted fields, doubled quotes). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted && ch === '"' && text[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (ch === '"') {
      quoted = !quoted;
    } else if (!quoted && ch === ",") {
      row.push(cell);
      cell = "";
    } else if (!quoted && ch === "\n") {
      rows.push([...row, cell]);
      row = [];
      cell = "";
    } else {
      cell += ch;
    }
  }
  if (cell || row.length) rows.push([...row, cell]);
  return rows;
}

describe("CSV export", () => {
  const records = (csv: string) => {
    const [header, ...rows] = parseCsv(csv);
    return rows.map((row) => Object.fromEntries((header ?? []).map((name, i) => [name, row[i] ?? ""])));
  };

  it("exports the holds and ledger entries of the date range, with integer micros, plain amounts and neutralised formulas", async () => {
    const finance = await makeUser(db, ["finance"]);
    const evil = producer("=cmd|' /C calc'!A0");
    const inside = await park("polling", { amountMicros: 1_234_567, currency: "CAD" }, { operationId: "+1+1" }, evil);
    const edge = await park("polling", { amountMicros: 2_000_000, currency: "CAD" }, { operationId: "@SUM(A1)" });
    const outside = await park("polling", { amountMicros: 3_000_000, currency: "CAD" }, { operationId: "order-old" });
    await resolveHold(db, finance, inside.holdRef, { ...settle(1_500_000), note: "-2+3 adjusted" });
    await db.$executeRaw`UPDATE holds SET created_at = '2026-03-10T12:00:00Z' WHERE id = ${inside.holdRef}::uuid`;
    await db.$executeRaw`UPDATE holds SET created_at = '2026-03-31T23:59:59.999Z' WHERE id = ${edge.holdRef}::uuid`;
    await db.$executeRaw`UPDATE holds SET created_at = '2026-04-01T00:00:00Z' WHERE id = ${outside.holdRef}::uuid`;
    await backdateLedger(owner, [
      { holdRef: inside.holdRef, at: "2026-03-15T08:00:00Z" },
      { holdRef: edge.holdRef, at: "2026-02-28T23:59:59Z" },
    ]);

    const holds = await exportFinanceCsv(
      db,
      finance,
      exportQuerySchema.parse({ from: "2026-03-01", to: "2026-03-31", kind: "holds" }),
    );
    expect(holds.filename).toBe("holds-2026-03-01-to-2026-03-31.csv");
    const holdRows = records(holds.body);
    expect(holdRows.map((r) => r.hold_ref)).toEqual([inside.holdRef, edge.holdRef]);
    expect(holdRows[0]).toMatchObject({
      producer: "'=cmd|' /C calc'!A0",
      operation_id: "'+1+1",
      status: "settled",
      currency: "CAD",
      amount_micros: "1234567",
      amount: "1.234567",
      settled_micros: "1234567",
      settled: "1.234567",
      released: "0.00",
      overage: "0.265433",
      released_micros: "0",
      overage_micros: "265433",
      decision_note: "'-2+3 adjusted",
    });
    expect(holdRows[1]).toMatchObject({ operation_id: "'@SUM(A1)", status: "held", amount_micros: "2000000" });
    for (const row of holdRows) {
      for (const value of Object.values(row)) expect(value).not.toMatch(/^[=+\-@]/);
    }
    // A row reads without UUIDs: the operation and producer first, the hold's id last, for programs.
    const header = parseCsv(holds.body)[0] ?? [];
    expect(header.slice(0, 3)).toEqual(["operation_id", "producer", "hold_id"]);
    expect(header.at(-1)).toBe("hold_ref");
    expect(header).not.toContain("case_id");

    const ledger = records(
      (
        await exportFinanceCsv(
          db,
          finance,
          exportQuerySchema.parse({ from: "2026-03-15", to: "2026-03-15", kind: "ledger" }),
        )
      ).body,
    );
    expect(ledger.map((r) => [r.kind, r.amount_micros, r.flagged])).toEqual(
      expect.arrayContaining([
        ["reserve", "1234567", "false"],
        ["settle", "1234567", "false"],
        ["overage", "265433", "true"],
      ]),
    );
    expect(ledger).toHaveLength(3);
    expect(ledger.every((r) => r.hold_ref === inside.holdRef && r.note !== "-2+3 adjusted")).toBe(true);
    expect(ledger.find((r) => r.kind === "settle")).toMatchObject({
      note: "'-2+3 adjusted",
      amount: "1.234567",
      currency: "CAD",
      operation_id: "'+1+1",
    });
    expect(Object.keys(ledger[0] ?? {})).not.toContain("entry_id");
  });

  it("exports one producer's holds and ledger entries when a producer is given", async () => {
    const finance = await makeUser(db, ["finance"]);
    const agency = producer("export-agency-shop");
    const theirs = await park("polling", { amountMicros: 4_000_000, currency: "CHF" }, {}, agency);
    const ours = await park("polling", { amountMicros: 5_000_000, currency: "CHF" });
    for (const { holdRef } of [theirs, ours]) {
      await db.$executeRaw`UPDATE holds SET created_at = '2026-05-10T12:00:00Z' WHERE id = ${holdRef}::uuid`;
    }
    await backdateLedger(owner, [
      { holdRef: theirs.holdRef, at: "2026-05-10T12:00:00Z" },
      { holdRef: ours.holdRef, at: "2026-05-10T12:00:00Z" },
    ]);
    const exported = async (kind: "holds" | "ledger", who?: string) =>
      records(
        (
          await exportFinanceCsv(
            db,
            finance,
            exportQuerySchema.parse({ from: "2026-05-10", to: "2026-05-10", kind, producer: who }),
          )
        ).body,
      ).map((r) => r.hold_ref);
    expect(await exported("holds", agency.name)).toEqual([theirs.holdRef]);
    expect(await exported("ledger", agency.name)).toEqual([theirs.holdRef]);
    expect((await exported("holds")).sort()).toEqual([theirs.holdRef, ours.holdRef].sort());
    expect(await exported("holds", "nobody")).toEqual([]);
    expect(
      exportQuerySchema.safeParse({ from: "2026-05-10", to: "2026-05-10", kind: "holds", producer: "" }).success,
    ).toBe(false);
  });

  it("refuses a reversed or too long range", () => {
    expect(exportQuerySchema.safeParse({ from: "2026-03-02", to: "2026-03-01", kind: "holds" }).success).toBe(false);
    expect(exportQuerySchema.safeParse({ from: "2025-01-01", to: "2026-03-01", kind: "holds" }).success).toBe(false);
    expect(exportQuerySchema.safeParse({ from: "2026-02-30", to: "2026-03-01", kind: "holds" }).success).toBe(false);
    expect(exportQuerySchema.safeParse({ from: "2026-03-01", to: "2026-03-01", kind: "cases" }).success).toBe(false);
  });
});
