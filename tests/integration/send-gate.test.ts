import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_ROUTES, routeKey } from "@/lib/api/routes";
import { createPrismaClient } from "@/lib/db/client";
import { conditionHolds } from "@/lib/domain/alert-rules";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { counterSamples } from "@/lib/metrics/counters";
import type { ProviderName } from "@/lib/providers/types";
import type { UserActor } from "@/lib/services/access/actor";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { alertFigures } from "@/lib/services/alert/alert-figures";
import { metricsSnapshot } from "@/lib/services/overview/metrics-snapshot";
import { overviewStats } from "@/lib/services/overview/overview-stats";
import { reportOutcome } from "@/lib/services/permit/report-outcome";
import { requestPermit } from "@/lib/services/permit/request-permit";
import {
  listProviderBreakers,
  resumeProviderBreaker,
  saveProviderBreaker,
} from "@/lib/services/provider-breaker/provider-breakers";
import { listSpendLimits } from "@/lib/services/spend-limit/list-spend-limits";
import { setSpendLimit } from "@/lib/services/spend-limit/set-spend-limit";
import { makeUser, outcomeInput, permitInput, producer } from "./fixtures";
import { callRoute } from "./helpers/call-route";
import { tableCounts } from "./helpers/table-counts";
import { openTestDb } from "./setup/test-db";

// Decision 037: spend limits and the unknown-outcome breaker decide at permit issue, and a refusal writes
// nothing (the limits are taken last and a refusal undoes the statement, decision 082).
const { db, url } = openTestDb();
const wide = createPrismaClient(url, 20);
afterAll(() => wide.$disconnect());

let finance: UserActor;
let admin: UserActor;
beforeAll(async () => {
  finance = await makeUser(db, ["finance"]);
  admin = await makeUser(db, ["admin"]);
});

const handler = (key: string) => {
  const route = API_ROUTES.find((r) => routeKey(r) === key);
  if (!route) throw new Error(`${key} is not in the route table`);
  return route.handle;
};

const AMOUNT = 100_000;

function ask(shop: ReturnType<typeof producer>, overrides: Parameters<typeof permitInput>[0] = {}) {
  const { operationId, input } = permitInput({
    ...overrides,
    hold: { holdId: `hold-${Math.random().toString(36).slice(2)}`, amountMicros: AMOUNT, currency: "USD" },
  });
  return { operationId, input, send: (client = db) => requestPermit(client, shop, operationId, input, env()) };
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return error;
}

const sendsLimit = (
  shop: string,
  figures: { perHourMicros: number | null; perDayMicros: number | null },
  model?: string,
) =>
  setSpendLimit(db, finance, {
    appliesTo: "sends",
    currency: "USD",
    producer: shop,
    ...(model ? { model } : {}),
    ...figures,
  });

const limitRow = (shop: string, model: string | null = null) =>
  db.spendLimit.findFirstOrThrow({ where: { appliesTo: "sends", producer: shop, currency: "USD", model } });

const heldBy = async (shop: string) =>
  (await db.hold.aggregate({ where: { producer: shop }, _sum: { amountMicros: true } }))._sum.amountMicros ?? 0n;

const refusalsCounted = async (reason: string, provider: string) =>
  (await counterSamples()).find(
    (s) => s.name === "recovery_permit_refusals_total" && s.labels.reason === reason && s.labels.provider === provider,
  )?.value ?? 0;

describe("spend limits at permit issue", () => {
  it("lets exactly N of 20 concurrent permits through a limit of N sends, and refuses the rest with the figures", async () => {
    const shop = producer("gate-burst");
    await sendsLimit(shop.name, { perHourMicros: 7 * AMOUNT, perDayMicros: null });
    const before = await refusalsCounted("spend_limit", "replicate");
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => ask(shop).send(wide)));
    const passed = results.filter((r) => r.status === "fulfilled");
    const refused = results.flatMap((r) => (r.status === "rejected" ? [r.reason as AppError] : []));
    expect(passed).toHaveLength(7);
    expect(refused).toHaveLength(13);
    for (const error of refused) {
      expect(error).toBeInstanceOf(AppError);
      expect(error.code).toBe("spend_limit_reached");
      expect(error.status).toBe(409);
      expect(error.extra.details).toEqual({
        window: "hour",
        scope: "producer",
        currency: "USD",
        producer: shop.name,
        model: null,
        limitMicros: 7 * AMOUNT,
        usedMicros: 7 * AMOUNT,
        requestedMicros: AMOUNT,
      });
    }
    expect(await heldBy(shop.name)).toBe(BigInt(7 * AMOUNT));
    expect(await db.sendPermit.count({ where: { producer: shop.name } })).toBe(7);
    expect(await limitRow(shop.name)).toMatchObject({ hourUsedMicros: BigInt(7 * AMOUNT) });
    expect((await refusalsCounted("spend_limit", "replicate")) - before).toBe(13);
  });

  it("keeps a producer's and a model's limits exact under concurrent first and later permits (decision 082)", async () => {
    const shop = producer("gate-both");
    await sendsLimit(shop.name, { perHourMicros: 10 * AMOUNT, perDayMicros: null });
    await sendsLimit(shop.name, { perHourMicros: 6 * AMOUNT, perDayMicros: null }, "omni-flash-720p");
    // Two rejected sends, whose operations ask again below (the locked transaction's path).
    const rejected = [ask(shop), ask(shop)];
    for (const first of rejected) {
      await first.send();
      await reportOutcome(db, shop, first.input.attemptId, outcomeInput(first.operationId, 1, "rejected"));
    }
    const later = rejected.map(
      ({ operationId, input }) =>
        () =>
          requestPermit(
            wide,
            shop,
            operationId,
            { ...input, attemptId: `${operationId}-a2`, hold: { ...input.hold, holdId: `${input.hold.holdId}-2` } },
            env(),
          ),
    );
    const sends = [
      ...later,
      ...Array.from({ length: 10 }, () => () => ask(shop).send(wide)),
      ...Array.from({ length: 10 }, () => () => ask(shop, { model: "omni-pro-1080p" }).send(wide)),
    ];
    const results = await Promise.allSettled(sends.map((send) => send()));
    // Every request ended in a permit or the limit's refusal: none in a deadlock or any other failure.
    for (const result of results) {
      if (result.status === "rejected") expect((result.reason as AppError).code).toBe("spend_limit_reached");
    }
    // 22 asks against 8 sends of room: the producer's limit is reached exactly, the model's is never
    // passed, and each counter is the sum of the holds its permits reserved (the rejected two's too).
    const [flash] = await db.$queryRaw<{ micros: bigint }[]>`
      SELECT coalesce(sum(h.amount_micros), 0)::bigint AS micros FROM holds h
      JOIN attempts a ON a.id = h.attempt_ref JOIN operations o ON o.id = a.operation_ref
      WHERE h.producer = ${shop.name} AND o.model = 'omni-flash-720p'`;
    expect(await heldBy(shop.name)).toBe(BigInt(10 * AMOUNT));
    expect(await limitRow(shop.name)).toMatchObject({ hourUsedMicros: BigInt(10 * AMOUNT) });
    expect((await limitRow(shop.name, "omni-flash-720p")).hourUsedMicros).toBe(flash?.micros);
    expect(flash?.micros).toBeLessThanOrEqual(BigInt(6 * AMOUNT));
  });

  it("refuses with nothing written: no operation, attempt, hold, permit, audit row or use", async () => {
    const shop = producer("gate-nothing");
    await ask(shop).send();
    await sendsLimit(shop.name, { perHourMicros: AMOUNT, perDayMicros: null });
    // The limit counted the send already held in this hour when it was set.
    expect(await limitRow(shop.name)).toMatchObject({ hourUsedMicros: BigInt(AMOUNT), dayUsedMicros: BigInt(AMOUNT) });
    const counts = await tableCounts(db);
    const row = await limitRow(shop.name);
    const error = await refusal(ask(shop).send());
    expect(error.code).toBe("spend_limit_reached");
    expect(await tableCounts(db)).toEqual(counts);
    expect(await limitRow(shop.name)).toEqual(row);
  });

  it("answers 409 spend_limit_reached over the API with the figures in the error's details", async () => {
    const shop = producer("gate-api");
    await sendsLimit(shop.name, { perHourMicros: null, perDayMicros: AMOUNT / 2 });
    const key = await createAccessToken(db, "cli", { kind: "api_key", name: shop.name });
    const { operationId, input } = ask(shop);
    const answer = await callRoute(handler("POST /api/v1/operations/{operationId}/attempts"), {
      token: key.secret,
      params: { operationId },
      body: input,
    });
    expect(answer.status).toBe(409);
    expect(answer.json.error).toMatchObject({
      code: "spend_limit_reached",
      details: { window: "day", limitMicros: AMOUNT / 2, usedMicros: 0, requestedMicros: AMOUNT, scope: "producer" },
    });
  });

  it("counts the calendar hour and the UTC day apart: a new hour frees the hour, not the day", async () => {
    const shop = producer("gate-windows");
    await sendsLimit(shop.name, { perHourMicros: 2 * AMOUNT, perDayMicros: 3 * AMOUNT });
    await ask(shop).send();
    await ask(shop).send();
    expect((await refusal(ask(shop).send())).extra.details).toMatchObject({ window: "hour", usedMicros: 2 * AMOUNT });
    // The hour's counter belongs to the previous hour now, as it would an hour later.
    await db.$executeRaw`UPDATE spend_limits SET hour_start = hour_start - interval '1 hour' WHERE producer = ${shop.name}`;
    await ask(shop).send();
    expect((await refusal(ask(shop).send())).extra.details).toMatchObject({
      window: "day",
      limitMicros: 3 * AMOUNT,
      usedMicros: 3 * AMOUNT,
    });
    await db.$executeRaw`UPDATE spend_limits SET day_start = day_start - interval '1 day', hour_start = hour_start - interval '1 hour' WHERE producer = ${shop.name}`;
    await ask(shop).send();
    expect(await limitRow(shop.name)).toMatchObject({ hourUsedMicros: BigInt(AMOUNT), dayUsedMicros: BigInt(AMOUNT) });
    const [view] = (await listSpendLimits(db, finance)).filter((l) => l.producer === shop.name);
    expect(view).toMatchObject({ appliesTo: "sends", usedHourMicros: AMOUNT, usedDayMicros: AMOUNT });
  });

  it("never moves a window back: a permit whose clock is a moment behind an hour's turn counts in the new hour", async () => {
    const shop = producer("gate-turn");
    await sendsLimit(shop.name, { perHourMicros: 2 * AMOUNT, perDayMicros: null });
    await ask(shop).send();
    // As if a permit in the next hour had taken the limit first: the counter is already that hour's.
    await db.$executeRaw`UPDATE spend_limits SET hour_start = hour_start + interval '1 hour' WHERE producer = ${shop.name}`;
    await ask(shop).send();
    expect((await refusal(ask(shop).send())).extra.details).toMatchObject({ window: "hour", usedMicros: 2 * AMOUNT });
    expect(await limitRow(shop.name)).toMatchObject({ hourUsedMicros: BigInt(2 * AMOUNT) });
  });

  it("limits one model apart from the producer's other models", async () => {
    const shop = producer("gate-model");
    await sendsLimit(shop.name, { perHourMicros: AMOUNT, perDayMicros: null }, "omni-flash-720p");
    await ask(shop).send();
    expect((await refusal(ask(shop).send())).extra.details).toMatchObject({
      scope: "model",
      model: "omni-flash-720p",
      window: "hour",
    });
    expect((await ask(shop, { model: "omni-pro-1080p" }).send()).status).toBe("permitted");
    expect(await limitRow(shop.name, "omni-flash-720p")).toMatchObject({ hourUsedMicros: BigInt(AMOUNT) });
  });

  it("leaves another producer's sends alone", async () => {
    const shop = producer("gate-full");
    const other = producer("gate-other");
    await sendsLimit(shop.name, { perHourMicros: 0, perDayMicros: null });
    expect((await refusal(ask(shop).send())).code).toBe("spend_limit_reached");
    expect((await ask(other).send()).status).toBe("permitted");
  });

  it("checks a new attempt after a refused send too, and writes nothing when it refuses", async () => {
    const shop = producer("gate-retry");
    await sendsLimit(shop.name, { perHourMicros: AMOUNT, perDayMicros: null });
    const first = ask(shop);
    const permit = await first.send();
    if (permit.status !== "permitted") throw new Error("expected a permit");
    await reportOutcome(db, shop, first.input.attemptId, outcomeInput(first.operationId, 1, "rejected"));
    const counts = await tableCounts(db);
    const again = {
      ...first.input,
      attemptId: `${first.operationId}-a2`,
      hold: { ...first.input.hold, holdId: `${first.input.hold.holdId}-2` },
    };
    const error = await refusal(requestPermit(db, shop, first.operationId, again, env()));
    expect(error.extra.details).toMatchObject({ window: "hour", usedMicros: AMOUNT, requestedMicros: AMOUNT });
    expect(await tableCounts(db)).toEqual(counts);
  });

  it("keeps replacement limits and sends limits apart", async () => {
    const shop = producer("gate-apart");
    await setSpendLimit(db, finance, { currency: "USD", producer: shop.name, perHourMicros: 0, perDayMicros: null });
    expect((await ask(shop).send()).status).toBe("permitted");
    const views = (await listSpendLimits(db, finance)).filter((l) => l.producer === shop.name);
    expect(views.map((v) => v.appliesTo)).toEqual(["replacements"]);
  });
});

describe("the unknown-outcome breaker", () => {
  const provider: ProviderName = "runway";
  const reporter = producer("breaker-shop");

  async function sendAndReport(outcome: "unknown" | "rejected", to = provider) {
    const { operationId, input, send } = ask(reporter, { provider: to, model: "gen4_turbo" });
    const permit = await send();
    if (permit.status !== "permitted") throw new Error("expected a permit");
    await reportOutcome(db, reporter, input.attemptId, outcomeInput(operationId, 1, outcome));
  }

  /** The breaker's open pause of the provider, from the one table of pauses (decision 070). */
  const breaker = async () => {
    const open = await db.pause.findFirst({
      where: { kind: "provider", value: provider, cause: "breaker", resumedAt: null },
    });
    return { pausedUntil: open?.until ?? null };
  };
  /** Moves every outcome of the provider and the breaker's pause back by its window, as time would. */
  const windowPasses = () =>
    db.$transaction([
      db.$executeRaw`UPDATE send_permits p SET reported_at = reported_at - interval '10 minutes'
        FROM attempts a WHERE a.id = p.attempt_ref AND a.provider = ${provider} AND p.reported_at IS NOT NULL`,
      db.$executeRaw`UPDATE pauses SET until = until - interval '10 minutes', paused_at = paused_at - interval '10 minutes'
        WHERE cause = 'breaker' AND resumed_at IS NULL
          AND ((kind = 'provider' AND value = ${provider}) OR at_provider = ${provider})`,
    ]);

  it("trips at the threshold once the minimum is met, refuses with 503 and Retry-After, and spares other providers", async () => {
    await saveProviderBreaker(db, admin, { provider, unknownPercent: 50, windowSeconds: 600, minOutcomes: 4 });
    await sendAndReport("unknown");
    await sendAndReport("rejected");
    await sendAndReport("rejected");
    // One unknown of three: under the minimum, and under the threshold.
    expect(await breaker()).toMatchObject({ pausedUntil: null });
    await sendAndReport("unknown");
    const tripped = await breaker();
    expect(tripped.pausedUntil).not.toBeNull();
    // On the record, like an admin's resume: which provider, and until when.
    const trip = await db.auditEvent.findFirstOrThrow({
      where: { kind: "provider_breaker_tripped" },
      orderBy: { id: "desc" },
    });
    expect(trip.after).toMatchObject({ provider, scope: "provider", pausedUntil: tripped.pausedUntil?.toISOString() });

    const before = await refusalsCounted("provider_paused", provider);
    const counts = await tableCounts(db);
    const error = await refusal(ask(reporter, { provider, model: "gen4_turbo" }).send());
    expect(error.code).toBe("provider_paused");
    expect(error.status).toBe(503);
    expect(error.extra.retryAfterSeconds).toBeGreaterThan(0);
    expect(error.extra.retryAfterSeconds).toBeLessThanOrEqual(600);
    expect(await tableCounts(db)).toEqual(counts);
    expect((await refusalsCounted("provider_paused", provider)) - before).toBe(1);

    const key = await createAccessToken(db, "cli", { kind: "api_key", name: reporter.name });
    const { operationId, input } = ask(reporter, { provider, model: "gen4_turbo" });
    const answer = await callRoute(handler("POST /api/v1/operations/{operationId}/attempts"), {
      token: key.secret,
      params: { operationId },
      body: input,
    });
    expect(answer.status).toBe(503);
    expect(answer.json.error?.code).toBe("provider_paused");
    expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);

    // Another provider, the same producer: unaffected.
    expect((await ask(reporter, { provider: "veo", model: "veo-3" }).send()).status).toBe("permitted");

    // Shown on the overview, counted by the alert rule and the breaker metric.
    const stats = await overviewStats(db, admin, { alertWindowMinutes: 60, alertThreshold: 1000 });
    expect(stats.pausedProviders.map((p) => p.provider)).toEqual([provider]);
    const figures = await alertFigures(db, { kind: "provider_paused", windowMinutes: 60 }, new Date());
    expect(figures.count).toBe(1);
    const rule = {
      kind: "provider_paused" as const,
      thresholdCount: 1,
      thresholdMicros: null,
      thresholdCurrency: null,
    };
    expect(conditionHolds({ ...rule, windowMinutes: 60 }, figures, new Date())).toBe(true);
    const family = (await metricsSnapshot(db)).find((f) => f.name === "recovery_provider_paused");
    expect(family?.samples).toContainEqual({ labels: { provider, producer: "" }, value: 1 });
  });

  it("closes when the window clears, and judges the next unknown on the outcomes still in the window", async () => {
    await windowPasses();
    expect((await ask(reporter, { provider, model: "gen4_turbo" }).send()).status).toBe("permitted");
    // One unknown on its own in the new window: under the minimum.
    await sendAndReport("unknown");
    expect((await breaker()).pausedUntil?.getTime() ?? 0).toBeLessThan(Date.now());
    const family = (await metricsSnapshot(db)).find((f) => f.name === "recovery_provider_paused");
    expect(family?.samples).toContainEqual({ labels: { provider, producer: "" }, value: 0 });
    const figures = await alertFigures(db, { kind: "provider_paused", windowMinutes: 60 }, new Date());
    expect(figures.count).toBe(0);
  });

  it("reopens on an admin's resume, and the outcomes before it stop counting", async () => {
    await sendAndReport("unknown");
    await sendAndReport("unknown");
    await sendAndReport("unknown");
    expect((await breaker()).pausedUntil?.getTime() ?? 0).toBeGreaterThan(Date.now());
    expect((await refusal(ask(reporter, { provider, model: "gen4_turbo" }).send())).code).toBe("provider_paused");
    const resumed = await resumeProviderBreaker(db, admin, provider);
    expect(resumed.wasPaused).toBe(true);
    expect((await ask(reporter, { provider, model: "gen4_turbo" }).send()).status).toBe("permitted");
    // The unknowns that tripped it are still in the window, but before the resume: one new unknown is under the minimum.
    await sendAndReport("unknown");
    expect((await breaker()).pausedUntil).toBeNull();
    const [view] = (await listProviderBreakers(db, admin)).filter((b) => b.provider === provider);
    expect(view).toMatchObject({
      settings: { unknownPercent: 50, windowSeconds: 600, minOutcomes: 4 },
      pausedUntil: null,
    });
    const audit = await db.auditEvent.findMany({
      where: { kind: { in: ["provider_breaker_updated", "provider_breaker_resumed"] } },
      orderBy: { id: "asc" },
    });
    expect(audit.map((a) => a.kind)).toEqual(["provider_breaker_updated", "provider_breaker_resumed"]);
  });

  it("pauses one producer at the provider on its own outcomes, while the provider and other producers go on", async () => {
    const at = "luma";
    const failing = producer("breaker-failing");
    const healthy = producer("breaker-healthy");
    await saveProviderBreaker(db, admin, { provider: at, unknownPercent: 50, windowSeconds: 600, minOutcomes: 4 });
    const report = async (shop: ReturnType<typeof producer>, outcome: "unknown" | "rejected") => {
      const { operationId, input, send } = ask(shop, { provider: at, model: "ray-2" });
      if ((await send()).status !== "permitted") throw new Error("expected a permit");
      await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, 1, outcome));
    };
    for (let i = 0; i < 6; i++) await report(healthy, "rejected");
    await report(failing, "rejected");
    for (let i = 0; i < 3; i++) await report(failing, "unknown");
    // 3 unknown of 10 at the provider (30%), 3 of 4 for the failing producer (75%).
    expect(await db.pause.count({ where: { kind: "provider", value: at, cause: "breaker", resumedAt: null } })).toBe(0);
    const error = await refusal(ask(failing, { provider: at, model: "ray-2" }).send());
    expect(error.code).toBe("provider_paused");
    expect(error.status).toBe(503);
    expect(error.extra.details).toMatchObject({ provider: at, scope: "producer", producer: failing.name });
    expect(error.extra.retryAfterSeconds).toBeGreaterThan(0);
    expect((await ask(healthy, { provider: at, model: "ray-2" }).send()).status).toBe("permitted");
    expect((await ask(failing, { provider: "veo", model: "veo-3" }).send()).status).toBe("permitted");

    const stats = await overviewStats(db, admin, { alertWindowMinutes: 60, alertThreshold: 1000 });
    expect(stats.pausedProviders).toContainEqual(expect.objectContaining({ provider: at, producer: failing.name }));
    const family = (await metricsSnapshot(db)).find((f) => f.name === "recovery_provider_paused");
    expect(family?.samples).toContainEqual({ labels: { provider: at, producer: failing.name }, value: 1 });
    const [view] = (await listProviderBreakers(db, admin)).filter((b) => b.provider === at);
    expect(view?.pausedProducers.map((p) => p.producer)).toEqual([failing.name]);

    // The admin's resume of the provider reopens its paused producers too.
    expect((await resumeProviderBreaker(db, admin, at)).producersResumed).toEqual([failing.name]);
    expect((await ask(failing, { provider: at, model: "ray-2" }).send()).status).toBe("permitted");
  });

  it("lets only an admin set or resume a breaker", async () => {
    await expect(saveProviderBreaker(db, finance, { provider, off: true })).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(resumeProviderBreaker(db, finance, provider)).rejects.toMatchObject({ code: "forbidden" });
  });
});
