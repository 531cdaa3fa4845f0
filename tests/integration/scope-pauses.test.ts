import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { API_ROUTES, routeKey } from "@/lib/api/routes";
import type { PauseKind } from "@/lib/domain/scope-pauses";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import type { ProviderName } from "@/lib/providers/types";
import type { UserActor } from "@/lib/services/access/actor";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { approveCase } from "@/lib/services/case/approve-case";
import { parkCase } from "@/lib/services/case/park-case";
import { claimActions } from "@/lib/services/claim/claim-actions";
import { reportOutcome } from "@/lib/services/permit/report-outcome";
import { requestPermit } from "@/lib/services/permit/request-permit";
import { resumeProviderBreaker, saveProviderBreaker } from "@/lib/services/provider-breaker/provider-breakers";
import { listScopePauses } from "@/lib/services/scope-pause/list-scope-pauses";
import { pauseScope } from "@/lib/services/scope-pause/pause-scope";
import { resumeScope } from "@/lib/services/scope-pause/resume-scope";
import { makeUser, outcomeInput, parkInput, permitInput, producer, registerProducers, worker } from "./fixtures";
import { callRoute } from "./helpers/call-route";
import { tableCounts } from "./helpers/table-counts";
import { openTestDb } from "./setup/test-db";

// Decision 064: a person's pause stops the worker's claims and new send permits for its scope, until resumed.
const { db } = openTestDb();
const shopA = producer("pause-shop-a");
const shopB = producer("pause-shop-b");

let admin: UserActor;
let reviewer: UserActor;
beforeAll(async () => {
  await registerProducers(db, shopA, shopB);
  admin = await makeUser(db, ["admin"]);
  reviewer = await makeUser(db, ["reviewer"]);
});
// Every test starts with nothing paused and nothing waiting for a worker.
beforeEach(async () => {
  await db.pause.deleteMany();
  await db.recoveryAction.updateMany({ where: { status: "ready" }, data: { readyAt: new Date("2100-01-01") } });
});

async function approvedPoll(shop = shopA, facts: { provider?: ProviderName; model?: string } = {}) {
  const { caseId } = await parkCase(db, shop, parkInput("polling", facts));
  const { actionId } = await approveCase(db, reviewer, caseId, { action: "resume_poll", evidence: "check it again" });
  return { caseId, actionId };
}

const claimedIds = async () =>
  (await claimActions(db, worker(), { max: 50, leaseSeconds: 60 })).map((c) => c.actionId).sort();

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return error;
}

const pause = (kind: PauseKind, value: string, by: UserActor = admin) =>
  pauseScope(db, by, { kind, value, reason: `testing a ${kind} pause` });
const resume = (kind: PauseKind, value: string, by: UserActor = admin) =>
  resumeScope(db, by, { kind, value, reason: "the provider answers again" });

describe("the worker's claims under a pause", () => {
  it("claims nothing of a paused provider while the others proceed, and everything once it is resumed", async () => {
    const paused = await approvedPoll(shopA, { provider: "replicate" });
    const other = await approvedPoll(shopA, { provider: "fal", model: "fal-video" });
    await pause("provider", "replicate");
    // An approval while paused is still recorded; it waits, ready.
    const approvedWhilePaused = await approvedPoll(shopB, { provider: "replicate" });
    expect(await claimedIds()).toEqual([other.actionId]);
    expect(await claimedIds()).toEqual([]);
    const waiting = await db.recoveryAction.findMany({
      where: { id: { in: [paused.actionId, approvedWhilePaused.actionId] } },
    });
    expect(waiting.map((a) => a.status)).toEqual(["ready", "ready"]);

    await resume("provider", "replicate");
    expect(await claimedIds()).toEqual([paused.actionId, approvedWhilePaused.actionId].sort());
  });

  it.each([
    ["producer", shopB.name],
    ["model", "paused-model"],
  ] as const)("holds back a paused %s's actions alone", async (kind, value) => {
    const covered = await approvedPoll(shopB, { model: "paused-model" });
    const free = await approvedPoll(shopA);
    await pause(kind, value);
    expect(await claimedIds()).toEqual([free.actionId]);
    await resume(kind, value);
    expect(await claimedIds()).toEqual([covered.actionId]);
  });
});

describe("send permits under a pause", () => {
  const handler = API_ROUTES.find((r) => routeKey(r) === "POST /api/v1/operations/{operationId}/attempts")?.handle;

  it("refuses a permit with 503 sends_paused naming the pause, writes nothing, and issues it once resumed", async () => {
    await pause("provider", "replicate");
    const counts = await tableCounts(db);
    const { operationId, input } = permitInput({ provider: "replicate" });
    const error = await refusal(requestPermit(db, shopA, operationId, input, env()));
    expect(error.code).toBe("sends_paused");
    expect(error.status).toBe(503);
    expect(error.extra.details).toMatchObject({ pauseKind: "provider", pausedValue: "replicate" });
    expect(await tableCounts(db)).toEqual(counts);

    // The SDK reads the code from the JSON body.
    if (!handler) throw new Error("the permit route is missing");
    const key = await createAccessToken(db, "cli", { kind: "api_key", name: shopA.name });
    const answer = await callRoute(handler, { token: key.secret, params: { operationId }, body: input });
    expect(answer.status).toBe(503);
    expect(answer.json.error).toMatchObject({ code: "sends_paused", details: { pauseKind: "provider" } });

    // Another provider goes on.
    const fal = permitInput({ provider: "fal", model: "fal-video" });
    expect((await requestPermit(db, shopA, fal.operationId, fal.input, env())).status).toBe("permitted");

    await resume("provider", "replicate");
    expect((await requestPermit(db, shopA, operationId, input, env())).status).toBe("permitted");
  });

  it.each([
    ["producer", shopA.name],
    ["model", "omni-flash-720p"],
  ] as const)("refuses a send of a paused %s, a first permit and a new attempt alike", async (kind, value) => {
    const first = permitInput();
    const permit = await requestPermit(db, shopA, first.operationId, first.input, env());
    if (permit.status !== "permitted") throw new Error("expected a permit");
    await reportOutcome(db, shopA, first.input.attemptId, outcomeInput(first.operationId, 1, "rejected"));
    await pause(kind, value);
    const fresh = permitInput();
    expect((await refusal(requestPermit(db, shopA, fresh.operationId, fresh.input, env()))).code).toBe("sends_paused");
    const again = {
      ...first.input,
      attemptId: `${first.operationId}-a2`,
      hold: { ...first.input.hold, holdId: `${first.input.hold.holdId}-2` },
    };
    const error = await refusal(requestPermit(db, shopA, first.operationId, again, env()));
    expect(error.code).toBe("sends_paused");
    expect(error.extra.details).toMatchObject({ pauseKind: kind, pausedValue: value });
    // Someone else's producer, or another model, is not held back by it.
    const elsewhere = permitInput({ model: "another-model" });
    expect((await requestPermit(db, shopB, elsewhere.operationId, elsewhere.input, env())).status).toBe("permitted");
  });
});

describe("a person's pause and the breaker's pause of one provider", () => {
  // Decision 070: one table, two causes. Each is resumed on its own; the claim honours only a person's.
  it("coexist, and resuming one leaves the other", async () => {
    const provider = "runway";
    const model = "gen4_turbo";
    await saveProviderBreaker(db, admin, { provider, unknownPercent: 1, windowSeconds: 600, minOutcomes: 1 });
    const first = permitInput({ provider, model });
    if ((await requestPermit(db, shopA, first.operationId, first.input, env())).status !== "permitted")
      throw new Error("expected a permit");
    // One unknown of one: the breaker trips and pauses the provider's new sends.
    await reportOutcome(db, shopA, first.input.attemptId, outcomeInput(first.operationId, 1, "unknown"));
    const send = () => {
      const next = permitInput({ provider, model });
      return requestPermit(db, shopA, next.operationId, next.input, env());
    };
    expect((await refusal(send())).code).toBe("provider_paused");
    // The breaker stops sends, not recoveries.
    const poll = await approvedPoll(shopA, { provider, model });
    expect(await claimedIds()).toEqual([poll.actionId]);

    expect(await pause("provider", provider)).toMatchObject({ created: true });
    const both = (await listScopePauses(db, admin)).filter((p) => p.kind === "provider" && p.value === provider);
    expect(both.map((p) => p.cause).sort()).toEqual(["breaker", "person"]);
    expect(both.find((p) => p.cause === "breaker")?.until).not.toBeNull();
    // A person's pause is named first: it has no end to wait for.
    const stopped = await refusal(send());
    expect(stopped.code).toBe("sends_paused");
    expect(stopped.extra.details).toMatchObject({ pauseKind: "provider", pausedValue: provider });
    const held = await approvedPoll(shopA, { provider, model });
    expect(await claimedIds()).toEqual([]);

    // The breaker's resume leaves the person's pause.
    expect((await resumeProviderBreaker(db, admin, provider)).wasPaused).toBe(true);
    expect((await refusal(send())).code).toBe("sends_paused");
    expect(await claimedIds()).toEqual([]);
    expect((await listScopePauses(db, admin)).filter((p) => p.value === provider).map((p) => p.cause)).toEqual([
      "person",
    ]);

    // And the other way round: a new trip, then the person's resume leaves the breaker's pause.
    const again = permitInput({ provider, model });
    await resume("provider", provider);
    if ((await requestPermit(db, shopA, again.operationId, again.input, env())).status !== "permitted")
      throw new Error("expected a permit");
    await reportOutcome(db, shopA, again.input.attemptId, outcomeInput(again.operationId, 1, "unknown"));
    await pause("provider", provider);
    await resume("provider", provider);
    expect((await refusal(send())).code).toBe("provider_paused");
    expect(await claimedIds()).toEqual([held.actionId]);
    // Every pause is kept, closed, with when it ended: one open pause is left, the breaker's.
    const history = await db.pause.findMany({ where: { kind: "provider", value: provider } });
    expect(history.filter((p) => p.resumedAt === null).map((p) => p.cause)).toEqual(["breaker"]);
    expect(
      history
        .filter((p) => p.resumedAt !== null)
        .map((p) => p.cause)
        .sort(),
    ).toEqual(["breaker", "person", "person"]);
    await saveProviderBreaker(db, admin, { provider, off: true });
    expect((await send()).status).toBe("permitted");
  });
});

describe("pausing and resuming", () => {
  it("writes one audit event each, with who and why; pausing again records nothing", async () => {
    expect(await pause("provider", "luma")).toMatchObject({ created: true });
    expect(await pause("provider", "luma")).toMatchObject({ created: false });
    await resume("provider", "luma");
    const events = (
      await db.auditEvent.findMany({
        where: { kind: { in: ["scope_paused", "scope_resumed"] } },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      })
    ).filter((e) => (e.after as { value?: string } | null)?.value === "luma");
    expect(events.map((e) => [e.kind, e.actorKind, e.actorId])).toEqual([
      ["scope_paused", "user", admin.userId],
      ["scope_resumed", "user", admin.userId],
    ]);
    expect(events[0]?.after).toMatchObject({
      pauseKind: "provider",
      value: "luma",
      reason: "testing a provider pause",
    });
    expect(events[1]?.before).toMatchObject({ reason: "testing a provider pause", pausedBy: admin.name });
    expect(events[1]?.after).toMatchObject({ reason: "the provider answers again" });
    expect((await refusal(resume("provider", "luma"))).code).toBe("not_found");
  });

  it("refuses names that would pause nothing", async () => {
    expect((await refusal(pause("provider", "no-such-provider"))).code).toBe("invalid_request");
    expect((await refusal(pause("producer", "no-such-shop"))).code).toBe("unknown_producer");
    expect(await db.pause.count()).toBe(0);
  });

  it("lets only people with the pause permission pause, and a scoped one only their own producers", async () => {
    for (const roles of [["viewer"], ["operator"], ["finance"]] as const) {
      const person = await makeUser(db, [...roles]);
      expect((await refusal(pause("producer", shopA.name, person))).code).toBe("forbidden");
    }
    const scoped = { ...(await makeUser(db, ["reviewer"])), producers: [shopA.name] };
    expect((await refusal(pause("provider", "replicate", scoped))).code).toBe("forbidden");
    expect((await refusal(pause("model", "omni-flash-720p", scoped))).code).toBe("forbidden");
    expect((await refusal(pause("producer", shopB.name, scoped))).code).toBe("forbidden");
    expect(await pause("producer", shopA.name, scoped)).toMatchObject({ created: true });
    await pause("producer", shopB.name, reviewer);
    await pause("provider", "replicate", reviewer);
    expect((await refusal(resume("producer", shopB.name, scoped))).code).toBe("forbidden");

    // Everyone sees provider and model pauses; a producer's pause only those who see that producer.
    const seen = (await listScopePauses(db, scoped)).map((p) => `${p.kind} ${p.value}`).sort();
    expect(seen).toEqual([`producer ${shopA.name}`, "provider replicate"]);
    expect(await listScopePauses(db, reviewer)).toHaveLength(3);
    await resume("producer", shopA.name, scoped);
  });
});
