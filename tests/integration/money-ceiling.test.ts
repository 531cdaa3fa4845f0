import { beforeAll, describe, expect, it } from "vitest";
import { openApiDocument } from "@/lib/api/openapi";
import { API_ROUTES, type RouteKey, routeKey } from "@/lib/api/routes";
import { HARD_MONEY_CEILING_MICROS } from "@/lib/domain/money-ceiling";
import { env } from "@/lib/env";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { parkCase } from "@/lib/services/case/park-case";
import { getHeldByAge } from "@/lib/services/finance/finance-aging";
import { getExposure } from "@/lib/services/finance/finance-exposure";
import { getFinanceTotals } from "@/lib/services/finance/finance-totals";
import { overviewStats } from "@/lib/services/overview/overview-stats";
import { makeUser, parkInput, permitInput, producer } from "./fixtures";
import { callRoute } from "./helpers/call-route";
import { tableCounts } from "./helpers/table-counts";
import { openTestDb } from "./setup/test-db";

// Decision 051: one amount is at most the money ceiling at every door, and sums leave exact.
const { db } = openTestDb();
const ABOVE = 9_007_199_254_740_991; // the amount that once broke Finance for everyone
const JUST_ABOVE = env().MONEY_CEILING_MICROS + 1;

const handler = (key: RouteKey) => {
  const found = API_ROUTES.find((route) => routeKey(route) === key);
  if (!found) throw new Error(key);
  return found.handle;
};

let producerKey = "";
let reviewerToken = "";
let financeToken = "";
let failedCaseId = "";
let heldHoldId = "";

beforeAll(async () => {
  producerKey = (await createAccessToken(db, "cli", { kind: "api_key", name: "ceiling-app" })).secret;
  const reviewer = await makeUser(db, ["reviewer"]);
  const finance = await makeUser(db, ["finance"]);
  reviewerToken = (await createAccessToken(db, reviewer, { kind: "personal", name: "cli" })).secret;
  financeToken = (await createAccessToken(db, finance, { kind: "personal", name: "cli" })).secret;
  const failed = await parkCase(db, producer("ceiling-app"), parkInput("generation_failed"));
  failedCaseId = failed.caseId;
  const polling = await parkCase(db, producer("ceiling-app"), parkInput("polling"));
  heldHoldId = (await db.hold.findFirstOrThrow({ where: { caseId: polling.caseId } })).id;
});

type Door = [string, (amount: number) => Promise<{ status: number; json: { error?: { code: string } } }>];

const doors: Door[] = [
  [
    "parking a case",
    (amount) => {
      const input = parkInput("polling");
      return callRoute(handler("POST /api/v1/cases"), {
        token: producerKey,
        body: { ...input, hold: { ...input.hold, amountMicros: amount } },
      });
    },
  ],
  [
    "asking for a send permit",
    (amount) => {
      const { operationId, input } = permitInput();
      return callRoute(handler("POST /api/v1/operations/{operationId}/attempts"), {
        token: producerKey,
        params: { operationId },
        body: { ...input, hold: { ...input.hold, amountMicros: amount } },
      });
    },
  ],
  [
    "requesting a replacement",
    (amount) =>
      callRoute(handler("POST /api/v1/cases/{id}/replacement-requests"), {
        token: reviewerToken,
        params: { id: failedCaseId },
        body: { evidence: "the provider says it failed", amountMicros: amount },
      }),
  ],
  [
    "settling a hold",
    (amount) =>
      callRoute(handler("POST /api/v1/holds/{id}/settle"), {
        token: financeToken,
        params: { id: heldHoldId },
        body: { chargeMicros: amount, note: "invoice 7", evidence: "provider invoice" },
      }),
  ],
  [
    "setting a spend limit",
    (amount) =>
      callRoute(handler("PUT /api/v1/finance/spend-limits"), {
        method: "PUT",
        token: financeToken,
        body: { currency: "USD", producer: null, perHourMicros: amount, perDayMicros: null },
      }),
  ],
];

describe("an amount above the money ceiling is refused at every door, and nothing is written", () => {
  it.each(doors)("%s: 400 amount_above_ceiling", async (_name, call) => {
    // A spend limit is a window's total, bounded by the hard maximum rather than one hold's ceiling.
    const amounts = _name === "setting a spend limit" ? [ABOVE, HARD_MONEY_CEILING_MICROS + 1] : [ABOVE, JUST_ABOVE];
    for (const amount of amounts) {
      const before = await tableCounts(db);
      const result = await call(amount);
      expect(result.status).toBe(400);
      expect(result.json.error?.code).toBe("amount_above_ceiling");
      expect(await tableCounts(db)).toEqual(before);
    }
  });

  it("the domain refuses a hold past the hard maximum even where no adapter checked", async () => {
    const input = parkInput("polling");
    const before = await tableCounts(db);
    await expect(
      parkCase(db, producer("ceiling-app"), { ...input, hold: { ...input.hold, amountMicros: ABOVE } }),
    ).rejects.toMatchObject({ code: "invalid_request" });
    expect(await tableCounts(db)).toEqual(before);
  });

  it("the database refuses a held amount past the hard maximum", async () => {
    await expect(
      db.$executeRaw`UPDATE holds SET amount_micros = ${HARD_MONEY_CEILING_MICROS + 1} WHERE id = ${heldHoldId}::uuid`,
    ).rejects.toThrow(/holds_amount_within_ceiling/);
  });
});

describe("sums past 2^53 are served exactly, and the rest of the figures with them", () => {
  it("ten holds at the hard maximum add up to an exact decimal string in every figure", async () => {
    const name = "ceiling-whale";
    for (let i = 0; i < 10; i++) {
      const input = parkInput("submission_uncertain");
      await parkCase(db, producer(name), {
        ...input,
        hold: { ...input.hold, amountMicros: HARD_MONEY_CEILING_MICROS },
      });
    }
    const finance = await makeUser(db, ["finance"]);
    const exact = "10000000000000000"; // 10^16 > 2^53: a JSON number would round it
    const totals = await getFinanceTotals(db, finance, [name]);
    expect(totals.byCurrency).toEqual([
      expect.objectContaining({ currency: "USD", held: { count: 10, micros: exact }, reservedMicros: exact }),
    ]);
    expect(totals.byProviderModel[0]?.held.micros).toBe(exact);
    expect((await getExposure(db, finance, [name]))[0]).toMatchObject({ count: 10, micros: exact });
    const aging = await getHeldByAge(db, finance, new Date(), [name]);
    expect(aging.reduce((sum, row) => sum + BigInt(row.micros), 0n)).toBe(10n ** 16n);
    const overview = await overviewStats(db, finance, { alertWindowMinutes: 60, alertThreshold: 5, producers: [name] });
    expect(overview.stages.find((s) => s.stage === "submission_uncertain")?.held).toEqual([
      { currency: "USD", micros: exact },
    ]);
    expect(overview.heldOverTime.at(-1)).toMatchObject({ currency: "USD", micros: exact });
  });

  it("the overview API sends the figure as that string, and the OpenAPI document says so", async () => {
    const finance = await makeUser(db, ["finance"]);
    const token = (await createAccessToken(db, finance, { kind: "personal", name: "cli" })).secret;
    const reply = await callRoute(handler("GET /api/v1/overview"), { token, query: { producer: "ceiling-whale" } });
    expect(reply.status).toBe(200);
    expect(JSON.stringify(reply.json)).toContain('"micros":"10000000000000000"');
    const doc = openApiDocument() as unknown as {
      components: { schemas: Record<string, { type: string }> };
      paths: Record<string, { get: { responses: Record<string, { content: Record<string, { schema: unknown }> }> } }>;
    };
    expect(doc.components.schemas.MicrosTotal?.type).toBe("string");
    const overviewSchema = doc.paths["/api/v1/overview"]?.get.responses["200"]?.content["application/json"]?.schema;
    expect(JSON.stringify(overviewSchema)).toContain("#/components/schemas/MicrosTotal");
  });
});
