import { describe, expect, it } from "vitest";
import { API_ROUTES, type RouteKey, routeKey } from "@/lib/api/routes";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { parkCase } from "@/lib/services/case/park-case";
import { listRecentDecisions } from "@/lib/services/finance/finance-recent-decisions";
import { listHolds } from "@/lib/services/hold/list-holds";
import { resolveHold } from "@/lib/services/hold/resolve-hold";
import { authorizeReplacement, declineReplacement } from "@/lib/services/replacement/decide-replacement";
import { requestReplacement } from "@/lib/services/replacement/request-replacement";
import { listHoldsSchema } from "@/lib/validation/finance";
import { makeUser, parkInput, producer } from "./fixtures";
import { callRoute } from "./helpers/call-route";
import { openTestDb } from "./setup/test-db";

// Finance's desk: finding a hold by its operation, and the list of what finance last decided.
// Each test names its operations with its own prefix, so the shared database's other holds never match.
const { db } = openTestDb();
const shop = producer("desk-shop");
const otherShop = producer("desk-other-shop");
const run = Date.now().toString(36);

async function park(operationId: string, amountMicros = 100_000, who = shop, currency = "USD") {
  const input = parkInput("generation_failed", { operationId });
  const { caseId } = await parkCase(db, who, { ...input, hold: { ...input.hold, amountMicros, currency } });
  const hold = await db.hold.findFirstOrThrow({ where: { caseId } });
  return { caseId, holdRef: hold.id };
}

const operations = (items: { operationId: string }[]) => items.map((item) => item.operationId).sort();
const route = (key: RouteKey) => {
  const found = API_ROUTES.find((candidate) => routeKey(candidate) === key);
  if (!found) throw new Error(key);
  return found.handle;
};

describe("holds found by operation ID", () => {
  it("lists the holds of the operation named, or of every operation starting with it, in the reader's producers", async () => {
    const finance = await makeUser(db, ["finance"]);
    const prefix = `desk-${run}-find`;
    await park(`${prefix}-1`);
    await park(`${prefix}-10`);
    await park(`${prefix}-2`, 100_000, otherShop);
    await park(`${prefix}x1`);
    const query = (operation?: string) => listHoldsSchema.parse({ status: "held", operation, limit: "200" });

    expect(operations((await listHolds(db, finance, query(`${prefix}-1`))).items)).toEqual([
      `${prefix}-1`,
      `${prefix}-10`,
    ]);
    expect(operations((await listHolds(db, finance, query(`${prefix}-`))).items)).toEqual([
      `${prefix}-1`,
      `${prefix}-10`,
      `${prefix}-2`,
    ]);
    // `_` and `%` are characters of an ID, not wildcards.
    expect((await listHolds(db, finance, query(`${prefix}_1`))).items).toEqual([]);
    expect((await listHolds(db, finance, query(`${prefix}%`))).items).toEqual([]);
    // A person limited to one producer finds only that producer's holds, whatever the search.
    const scoped = { ...finance, producers: [shop.name] };
    expect(operations((await listHolds(db, scoped, query(`${prefix}-`))).items)).toEqual([
      `${prefix}-1`,
      `${prefix}-10`,
    ]);
    // Without a search, the list is what it was: every held hold, the searched ones among them.
    const everything = operations((await listHolds(db, finance, query())).items);
    expect(everything.filter((id) => id.startsWith(prefix))).toHaveLength(4);
  });

  it("finds a resolved case's open hold by operation in the needs-a-decision view too", async () => {
    const finance = await makeUser(db, ["finance"]);
    const prefix = `desk-${run}-needs`;
    const { caseId } = await park(`${prefix}-a`);
    await park(`${prefix}-b`);
    await db.case.update({ where: { id: caseId }, data: { state: "resolved" } });
    const page = await listHolds(
      db,
      finance,
      listHoldsSchema.parse({ view: "needs_decision", operation: `${prefix}-a`, limit: "200" }),
    );
    expect(operations(page.items)).toEqual([`${prefix}-a`]);
  });

  it("over HTTP: GET /api/v1/holds?operation= answers finance with the matching holds, within its producers", async () => {
    const prefix = `desk-${run}-http`;
    await park(`${prefix}-mine`);
    await park(`${prefix}-theirs`, 100_000, otherShop);
    const finance = await makeUser(db, ["finance"]);
    const token = (await createAccessToken(db, finance, { kind: "personal", name: "desk" })).secret;
    const list = await callRoute(route("GET /api/v1/holds"), { token, query: { operation: prefix, status: "held" } });
    expect(list.status).toBe(200);
    expect(operations(list.json.items as { operationId: string }[])).toEqual([`${prefix}-mine`, `${prefix}-theirs`]);

    const agency = await makeUser(db, ["finance"]);
    await db.user.update({ where: { id: agency.userId }, data: { producerScope: [shop.name] } });
    const agencyToken = (await createAccessToken(db, agency, { kind: "personal", name: "desk-agency" })).secret;
    const scoped = await callRoute(route("GET /api/v1/holds"), { token: agencyToken, query: { operation: prefix } });
    expect(scoped.status).toBe(200);
    expect(operations(scoped.json.items as { operationId: string }[])).toEqual([`${prefix}-mine`]);

    const exact = await callRoute(route("GET /api/v1/holds"), { token, query: { operation: `${prefix}-mine` } });
    expect(operations(exact.json.items as { operationId: string }[])).toEqual([`${prefix}-mine`]);

    const reviewer = await makeUser(db, ["reviewer"]);
    const reviewerToken = (await createAccessToken(db, reviewer, { kind: "personal", name: "desk-r" })).secret;
    const refused = await callRoute(route("GET /api/v1/holds"), { token: reviewerToken, query: { operation: prefix } });
    expect(refused.status).toBe(403);
  });
});

describe("recently decided", () => {
  it("lists finance's last decisions newest first: operation, producer, decision, amount, who and when", async () => {
    const finance = await makeUser(db, ["finance"]);
    const reviewer = await makeUser(db, ["reviewer"]);
    const prefix = `desk-${run}-recent`;
    // Its own currency, so the decisions of the other tests in this database are not in the way.
    const settled = await park(`${prefix}-settled`, 1_000_000, shop, "NZD");
    const released = await park(`${prefix}-released`, 2_500_000, otherShop, "NZD");
    const declined = await park(`${prefix}-declined`, 750_000, shop, "NZD");
    const authorised = await park(`${prefix}-authorised`, 500_000, shop, "NZD");
    await resolveHold(db, finance, settled.holdRef, {
      kind: "settle",
      chargeMicros: 400_000,
      note: "n",
      evidence: "e",
    });
    await resolveHold(db, finance, released.holdRef, { kind: "release", note: "n", evidence: "e" });
    const asked = await requestReplacement(db, reviewer, declined.caseId, { evidence: "content filter" });
    await declineReplacement(db, finance, asked.requestId, { evidence: "over budget" });
    const again = await requestReplacement(db, reviewer, authorised.caseId, { evidence: "content filter" });
    await authorizeReplacement(db, finance, again.requestId, { evidence: "budget approved" });

    const mine = (await listRecentDecisions(db, finance)).filter((d) => d.operationId.startsWith(prefix));
    expect(mine.map((d) => [d.kind, d.operationId, d.producer, d.amountMicros, d.releasedMicros])).toEqual([
      ["replacement_authorized", `${prefix}-authorised`, shop.name, 500_000, 0],
      ["replacement_declined", `${prefix}-declined`, shop.name, 750_000, 0],
      ["released", `${prefix}-released`, otherShop.name, 2_500_000, 0],
      ["settled", `${prefix}-settled`, shop.name, 400_000, 600_000],
    ]);
    for (const decision of mine) {
      expect(decision).toMatchObject({ currency: "NZD", decidedBy: finance.email });
      expect(Number.isNaN(Date.parse(decision.decidedAt))).toBe(false);
    }

    // A person limited to one producer reads that producer's decisions only.
    const scoped = await listRecentDecisions(db, { ...finance, producers: [shop.name] });
    expect(scoped.every((d) => d.producer === shop.name)).toBe(true);
    expect(scoped.map((d) => d.operationId)).toContain(`${prefix}-settled`);
    // A producer asked for outside the person's own gives nothing.
    expect(await listRecentDecisions(db, { ...finance, producers: [shop.name] }, [otherShop.name])).toEqual([]);
    await expect(listRecentDecisions(db, reviewer)).rejects.toMatchObject({ code: "forbidden" });
  });

  it("holds the last twenty of a producer's decisions, newest first", async () => {
    const finance = await makeUser(db, ["finance"]);
    const busy = producer(`desk-busy-${run}`);
    for (let n = 1; n <= 21; n++) {
      const { holdRef } = await park(`desk-${run}-busy-${n}`, 100_000, busy);
      await resolveHold(db, finance, holdRef, { kind: "release", note: "n", evidence: "e" });
    }
    const recent = await listRecentDecisions(db, finance, [busy.name]);
    expect(recent.map((d) => d.operationId)).toEqual(
      Array.from({ length: 20 }, (_, i) => `desk-${run}-busy-${21 - i}`),
    );
  });
});
