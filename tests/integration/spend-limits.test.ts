import { afterAll, describe, expect, it } from "vitest";
import { API_ROUTES, type RouteKey, routeKey } from "@/lib/api/routes";
import { createPrismaClient } from "@/lib/db/client";
import { counterSamples } from "@/lib/metrics/counters";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { parkCase } from "@/lib/services/case/park-case";
import { authorizeReplacement } from "@/lib/services/replacement/decide-replacement";
import { listPendingReplacementRequests } from "@/lib/services/replacement/list-replacement-requests";
import { requestReplacement } from "@/lib/services/replacement/request-replacement";
import { listSpendLimits } from "@/lib/services/spend-limit/list-spend-limits";
import { setSpendLimit } from "@/lib/services/spend-limit/set-spend-limit";
import { makeUser, parkInput, producer } from "./fixtures";
import { callRoute } from "./helpers/call-route";
import { openTestDb } from "./setup/test-db";

// Decision 030: finance caps what replacements may authorise per rolling hour and day, per
// currency, for every producer or one; an authorisation past a cap is refused with the figures.
const { db, url } = openTestDb();

/** A proven failure with a replacement request of `amountMicros` waiting, from `shop`. */
async function pendingReplacement(currency: string, amountMicros: number, shop = producer("limit-shop")) {
  const input = parkInput("generation_failed");
  const { caseId } = await parkCase(db, shop, {
    ...input,
    hold: { holdId: `hold-${input.operationId}`, amountMicros, currency },
  });
  const reviewer = await makeUser(db, ["reviewer"]);
  const { requestId } = await requestReplacement(db, reviewer, String(caseId), { evidence: "failed for good" });
  return requestId;
}

const authorise = async (requestId: string) =>
  authorizeReplacement(db, await makeUser(db, ["finance"]), requestId, { evidence: "budget approved" });

describe("spend limits on replacements", () => {
  it("refuses the authorisation that would pass the hourly limit, with the figures, and authorises nothing", async () => {
    const finance = await makeUser(db, ["finance"]);
    await setSpendLimit(db, finance, { currency: "EUR", perHourMicros: 250_000, perDayMicros: 1_000_000 });
    await authorise(await pendingReplacement("EUR", 100_000));
    await authorise(await pendingReplacement("EUR", 100_000));
    const third = await pendingReplacement("EUR", 100_000);
    await expect(authorise(third)).rejects.toMatchObject({
      code: "spend_limit_exceeded",
      status: 409,
      message: expect.stringContaining("€0.25"),
      extra: {
        details: {
          window: "hour",
          currency: "EUR",
          producer: null,
          limitMicros: 250_000,
          usedMicros: 200_000,
          requestedMicros: 100_000,
        },
      },
    });
    const refusals = (await counterSamples()).find(
      (s) => s.name === "recovery_spend_limit_refusals_total" && s.labels.currency === "EUR",
    );
    expect(refusals).toMatchObject({ labels: { window: "hour" }, value: 1 });
    const request = await db.replacementRequest.findUniqueOrThrow({ where: { id: third } });
    expect(request.status).toBe("pending");
    expect(await db.hold.count({ where: { holdId: `replacement-${third}` } })).toBe(0);
    // A smaller one still fits.
    await authorise(await pendingReplacement("EUR", 50_000));

    const [limit] = (await listSpendLimits(db, finance)).filter((l) => l.currency === "EUR");
    expect(limit).toMatchObject({
      producer: null,
      perHourMicros: 250_000,
      usedHourMicros: 250_000,
      usedDayMicros: 250_000,
    });
  });

  it("warns on the finance list before an authorisation a limit would refuse; a person limited to some producers is not shown every producer's figures", async () => {
    const finance = await makeUser(db, ["finance"]);
    const shop = producer(`warn-shop-${Date.now().toString(36)}`);
    await setSpendLimit(db, finance, { currency: "DKK", perHourMicros: 150_000, perDayMicros: null });
    await authorise(await pendingReplacement("DKK", 100_000, shop));
    const tooMuch = await pendingReplacement("DKK", 100_000, shop);
    const fits = await pendingReplacement("DKK", 50_000, shop);
    // Intl separates a currency code from its amount with a no-break space.
    const warningOf = async (actor: typeof finance, id: string) =>
      (await listPendingReplacementRequests(db, actor)).items
        .find((item) => item.id === id)
        ?.spendLimitWarning?.replaceAll("\u00a0", " ") ?? null;
    expect(await warningOf(finance, tooMuch)).toBe(
      "the hourly spend limit for DKK replacements (every producer) is DKK 0.15, DKK 0.10 is already authorised in the last hour and this replacement asks DKK 0.10.",
    );
    expect(await warningOf(finance, fits)).toBeNull();

    const agency = await makeUser(db, ["finance"]);
    await db.user.update({ where: { id: agency.userId }, data: { producerScope: [shop.name] } });
    const scoped = { ...agency, producers: [shop.name] };
    const warning = await warningOf(scoped, tooMuch);
    expect(warning).toContain("(every producer) would be passed by this replacement's DKK 0.10");
    expect(warning).not.toContain("already authorised");
    await expect(authorizeReplacement(db, scoped, tooMuch, { evidence: "budget approved" })).rejects.toMatchObject({
      code: "spend_limit_exceeded",
      extra: { details: { producer: null, limitMicros: null, usedMicros: null, requestedMicros: 100_000 } },
    });
  });

  it("counts the day's authorisations beyond the hour against the daily limit", async () => {
    const finance = await makeUser(db, ["finance"]);
    await setSpendLimit(db, finance, { currency: "GBP", perHourMicros: null, perDayMicros: 150_000 });
    const earlier = await pendingReplacement("GBP", 100_000);
    await authorise(earlier);
    await db.replacementRequest.update({
      where: { id: earlier },
      data: { decidedAt: new Date(Date.now() - 3 * 3_600_000) },
    });
    await expect(authorise(await pendingReplacement("GBP", 100_000))).rejects.toMatchObject({
      code: "spend_limit_exceeded",
      extra: { details: { window: "day", limitMicros: 150_000, usedMicros: 100_000 } },
    });
    // A day later the earlier one has left the window.
    await db.replacementRequest.update({
      where: { id: earlier },
      data: { decidedAt: new Date(Date.now() - 25 * 3_600_000) },
    });
    await authorise(await pendingReplacement("GBP", 100_000));
  });

  it("a producer's own limit binds only that producer", async () => {
    const finance = await makeUser(db, ["finance"]);
    const capped = producer("capped-shop");
    await setSpendLimit(db, finance, {
      currency: "CHF",
      producer: "capped-shop",
      perHourMicros: 100_000,
      perDayMicros: null,
    });
    await authorise(await pendingReplacement("CHF", 100_000, capped));
    await expect(authorise(await pendingReplacement("CHF", 100_000, capped))).rejects.toMatchObject({
      code: "spend_limit_exceeded",
      extra: { details: { producer: "capped-shop", usedMicros: 100_000 } },
    });
    await authorise(await pendingReplacement("CHF", 100_000, producer("other-shop")));
  });

  it("two concurrent authorisations cannot both pass the limit", async () => {
    const finance = await makeUser(db, ["finance"]);
    await setSpendLimit(db, finance, { currency: "JPY", perHourMicros: 150_000_000, perDayMicros: null });
    const requests = [await pendingReplacement("JPY", 100_000_000), await pendingReplacement("JPY", 100_000_000)];
    // Two "processes", each with its own pool, deciding at the same moment.
    const clients = [createPrismaClient(url, 2), createPrismaClient(url, 2)];
    afterAll(() => Promise.all(clients.map((c) => c.$disconnect())));
    const deciders = [await makeUser(db, ["finance"]), await makeUser(db, ["finance"])];
    for (let round = 0; round < 3; round++) {
      const results = await Promise.allSettled(
        requests.map((id, i) =>
          authorizeReplacement(clients[i] as typeof db, deciders[i] as never, id, { evidence: "approved" }),
        ),
      );
      const passed = results.filter((r) => r.status === "fulfilled");
      if (round === 0) {
        expect(passed).toHaveLength(1);
        const refused = results.find((r) => r.status === "rejected");
        expect(refused?.reason).toMatchObject({ code: "spend_limit_exceeded" });
      } else {
        // Later rounds: the authorised one is decided, the other still over the limit.
        expect(passed).toHaveLength(0);
      }
    }
    expect(await db.replacementRequest.count({ where: { id: { in: requests }, status: "authorized" } })).toBe(1);
  });

  it("finance sets and clears limits, each change audited with what it replaced; others may not", async () => {
    const finance = await makeUser(db, ["finance"]);
    await setSpendLimit(db, finance, { currency: "CAD", perHourMicros: 5_000_000, perDayMicros: null });
    await setSpendLimit(db, finance, { currency: "CAD", perHourMicros: 7_000_000, perDayMicros: 20_000_000 });
    const cleared = await setSpendLimit(db, finance, { currency: "CAD", perHourMicros: null, perDayMicros: null });
    expect(cleared.limit).toBeNull();
    expect(await db.spendLimit.count({ where: { currency: "CAD" } })).toBe(0);
    const audit = await db.auditEvent.findMany({
      where: { kind: { in: ["spend_limit_set", "spend_limit_cleared"] }, actorId: finance.userId },
      orderBy: { id: "asc" },
    });
    expect(audit.map((e) => [e.kind, e.before, e.after])).toEqual([
      [
        "spend_limit_set",
        { currency: "CAD", producer: null, limit: null },
        { currency: "CAD", producer: null, limit: { perHourMicros: 5_000_000, perDayMicros: null } },
      ],
      [
        "spend_limit_set",
        { currency: "CAD", producer: null, limit: { perHourMicros: 5_000_000, perDayMicros: null } },
        { currency: "CAD", producer: null, limit: { perHourMicros: 7_000_000, perDayMicros: 20_000_000 } },
      ],
      [
        "spend_limit_cleared",
        { currency: "CAD", producer: null, limit: { perHourMicros: 7_000_000, perDayMicros: 20_000_000 } },
        { currency: "CAD", producer: null, limit: null },
      ],
    ]);
    for (const role of ["reviewer", "operator", "admin"] as const) {
      const user = await makeUser(db, [role]);
      await expect(
        setSpendLimit(db, user, { currency: "CAD", perHourMicros: 1, perDayMicros: null }),
      ).rejects.toMatchObject({ code: "forbidden" });
    }
    await expect(listSpendLimits(db, await makeUser(db, ["reviewer"]))).rejects.toMatchObject({ code: "forbidden" });
  });

  it("over HTTP: finance sets a limit, reads its use, and a refused authorisation carries the figures", async () => {
    const handler = (key: RouteKey) => {
      const found = API_ROUTES.find((route) => routeKey(route) === key);
      if (!found) throw new Error(key);
      return found.handle;
    };
    const finance = await makeUser(db, ["finance"]);
    const token = (await createAccessToken(db, finance, { kind: "personal", name: "limits" })).secret;
    const put = await callRoute(handler("PUT /api/v1/finance/spend-limits"), {
      method: "PUT",
      token,
      body: { currency: "SEK", producer: null, perHourMicros: 150_000, perDayMicros: null },
    });
    expect(put.status).toBe(200);
    const bad = await callRoute(handler("PUT /api/v1/finance/spend-limits"), {
      method: "PUT",
      token,
      body: { currency: "sek", perHourMicros: -1, perDayMicros: null },
    });
    expect(bad.status).toBe(400);
    await authorise(await pendingReplacement("SEK", 100_000));
    const refused = await callRoute(handler("POST /api/v1/replacement-requests/{id}/authorize"), {
      token,
      params: { id: await pendingReplacement("SEK", 100_000) },
      body: { evidence: "approved" },
    });
    expect(refused.status).toBe(409);
    expect(refused.json.error).toMatchObject({
      code: "spend_limit_exceeded",
      details: { window: "hour", currency: "SEK", limitMicros: 150_000, usedMicros: 100_000, requestedMicros: 100_000 },
    });
    const list = await callRoute(handler("GET /api/v1/finance/spend-limits"), { token });
    expect(list.status).toBe(200);
    expect((list.json.limits as { currency: string }[]).find((l) => l.currency === "SEK")).toMatchObject({
      perHourMicros: 150_000,
      usedHourMicros: 100_000,
    });
  });
});
