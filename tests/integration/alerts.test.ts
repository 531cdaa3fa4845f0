import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import * as destinationsRoute from "@/app/api/v1/alerts/destinations/route";
import * as firingsRoute from "@/app/api/v1/alerts/firings/route";
import * as rulesRoute from "@/app/api/v1/alerts/rules/route";
import * as settingsRoute from "@/app/api/v1/alerts/settings/route";
import { recordAudit } from "@/lib/audit/writer";
import type { AlertRuleKind } from "@/lib/domain/alert-rules";
import type { UserActor } from "@/lib/services/access/actor";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { alertFigures } from "@/lib/services/alert/alert-figures";
import { makeAlertRoundDue } from "@/lib/services/alert/alert-schedule";
import { evaluateAlerts } from "@/lib/services/alert/evaluate-alerts";
import { listAlertFirings } from "@/lib/services/alert/list-alert-firings";
import { listAlertSettings } from "@/lib/services/alert/list-alert-settings";
import { saveAlertDestination } from "@/lib/services/alert/save-alert-destination";
import { saveAlertRule } from "@/lib/services/alert/save-alert-rule";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { escalateOverdueCases } from "@/lib/services/case/escalate-overdue-cases";
import { parkCase } from "@/lib/services/case/park-case";
import { resolveHold } from "@/lib/services/hold/resolve-hold";
import { webhookMessage } from "@/lib/services/notification/enqueue-notification";
import { resumeProviderBreaker, saveProviderBreaker } from "@/lib/services/provider-breaker/provider-breakers";
import { authorizeReplacement } from "@/lib/services/replacement/decide-replacement";
import { requestReplacement } from "@/lib/services/replacement/request-replacement";
import { openPause } from "@/lib/services/scope-pause/writer/pauses";
import { alertDestinationBody, listAlertFiringsSchema, saveAlertRuleSchema } from "@/lib/validation/alerts";
import { parseInput } from "@/lib/validation/parse-input";
import { watchAlerts } from "@/lib/worker/alert-round";
import { dispatchNotifications } from "@/lib/worker/dispatch-notifications";
import { runTick } from "@/lib/worker/run-tick";
import type { WorkerContext } from "@/lib/worker/worker-context";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { callRoute } from "./helpers/call-route";
import { type PlainReceiver, startPlainReceiver } from "./helpers/plain-receiver";
import { startWebhookReceiver, type WebhookReceiver } from "./helpers/webhook-receiver";
import { TEST_RECEIVERS, testWorkerContext } from "./helpers/worker-context";
import { openTestDb } from "./setup/test-db";

// Route handlers read the session only when no bearer token is sent; these calls always send one.
vi.hoisted(() => {
  process.env.AUTH_SECRET ??= "alerts-test-secret-0123456789-0123456789";
});

// Issue 19: each rule is driven through a real receiver. A Standard Webhooks endpoint verifies every
// signature; a Slack-compatible endpoint records the text. Time moves by the `now` each round is given.
process.env.WORKER_LOG = "0";
const { db } = openTestDb();
const shop = producer("alerts-shop");
const CONSOLE = "https://console.example.com";
const MINUTE = 60_000;
const past = (minutes: number) => new Date(Date.now() - minutes * MINUTE).toISOString();
const later = (minutes: number) => new Date(Date.now() + minutes * MINUTE);

let admin: UserActor;
let finance: UserActor;
let reviewer: UserActor;
let hooks: WebhookReceiver;
let slack: PlainReceiver;
let ctx: WorkerContext;
let hooksId = "";
let slackId = "";
/** Webhook-ids the receiver refuses once, to show a retry keeps the id. */
const refuseOnce = new Set<string>();
const refused = new Set<string>();

/** A round, made due first as saving a rule makes it (a worker would otherwise wait up to 30 s for it). */
async function round(now?: Date) {
  await makeAlertRoundDue(db);
  await evaluateAlerts(db, { consoleUrl: CONSOLE, now });
  await dispatchNotifications(ctx, Date.now() + 10_000);
}

/** Only this rule is enabled, its count threshold just above what the database holds already. */
async function onlyRule(
  kind: AlertRuleKind,
  destinationId: string,
  settings: { above?: number; windowMinutes?: number; renotifyMinutes?: number; thresholdAmount?: string } = {},
) {
  await db.alertRule.updateMany({ data: { enabled: false } });
  const windowMinutes = settings.windowMinutes ?? 60;
  const baseline = (await alertFigures(db, { kind, windowMinutes }, new Date())).count;
  return saveAlertRule(
    db,
    admin,
    parseInput(saveAlertRuleSchema, {
      name: `${kind} ${Math.random().toString(36).slice(2, 8)}`,
      kind,
      thresholdCount: baseline + (settings.above ?? 1),
      windowMinutes,
      renotifyMinutes: settings.renotifyMinutes ?? 30,
      destinationId,
      ...(settings.thresholdAmount ? { thresholdAmount: settings.thresholdAmount, thresholdCurrency: "USD" } : {}),
    }),
  );
}

type Envelope = { type: string; data: { firingId: string; figures: { count: number; held: unknown[] }; link: string } };
const messagesOf = (firingId: string) =>
  hooks.received.filter((r) => r.verified && (r.payload as Envelope).data.firingId === firingId && r.status === 200);
const typesOf = (firingId: string) => messagesOf(firingId).map((r) => (r.payload as Envelope).type);
const openFiring = async (ruleId: string) => db.alertFiring.findFirst({ where: { ruleId, resolvedAt: null } });

beforeAll(async () => {
  admin = await makeUser(db, ["admin"]);
  finance = await makeUser(db, ["finance"]);
  reviewer = await makeUser(db, ["reviewer"]);
  // Created first (the secret is issued once, now), then pointed at the receiver that knows it.
  const created = await saveAlertDestination(
    db,
    admin,
    parseInput(alertDestinationBody, { name: "on-call hooks", kind: "webhook", url: "http://127.0.0.1:9/hooks" }),
    { allow: TEST_RECEIVERS },
  );
  expect(created.signingSecret).toMatch(/^whsec_/);
  hooks = await startWebhookReceiver(created.signingSecret as string, (id) => {
    if (refuseOnce.has(id) && !refused.has(id)) {
      refused.add(id);
      return 500;
    }
    return 200;
  });
  hooksId = created.destination.id;
  await saveAlertDestination(
    db,
    admin,
    parseInput(alertDestinationBody, { id: hooksId, name: "on-call hooks", kind: "webhook", url: hooks.url }),
    { allow: TEST_RECEIVERS },
  );
  slack = await startPlainReceiver();
  const chat = await saveAlertDestination(
    db,
    admin,
    parseInput(alertDestinationBody, { name: "ops channel", kind: "slack", url: slack.url }),
    { allow: TEST_RECEIVERS },
  );
  expect(chat.signingSecret).toBeNull();
  slackId = chat.destination.id;
  ctx = await testWorkerContext(db, "http://127.0.0.1:9", { consoleUrl: CONSOLE });
});
afterAll(async () => {
  await hooks?.stop();
  await slack?.stop();
});
beforeEach(() => {
  refuseOnce.clear();
});

describe("settings", () => {
  it("never shows a signing secret or a Slack URL's path, and audits every change", async () => {
    const settings = await listAlertSettings(db, admin);
    const chat = settings.destinations.find((d) => d.id === slackId);
    expect(chat?.url).toBe(`${new URL(slack.url).origin}/…`);
    expect(JSON.stringify(settings)).not.toContain("whsec_");
    const audits = await db.auditEvent.findMany({ where: { kind: { startsWith: "alert_destination_" } } });
    expect(audits.map((a) => a.kind).sort()).toEqual([
      "alert_destination_created",
      "alert_destination_created",
      "alert_destination_updated",
    ]);
    expect(JSON.stringify(audits.map((a) => [a.before, a.after]))).not.toContain("/services/T000");
  });

  it("refuses anyone but an admin, and a destination on a private address outside the allow-list", async () => {
    await expect(listAlertSettings(db, reviewer)).rejects.toMatchObject({ code: "forbidden" });
    await expect(
      saveAlertDestination(
        db,
        admin,
        parseInput(alertDestinationBody, { name: "inside", kind: "slack", url: "http://10.0.0.8/hook" }),
        { allow: TEST_RECEIVERS },
      ),
    ).rejects.toMatchObject({ code: "invalid_request" });
  });
});

describe("the HTTP API", () => {
  it("lets an admin configure a rule with a money threshold, and anyone who reads cases list firings", async () => {
    const adminToken = (await createAccessToken(db, admin, { kind: "personal", name: "alerts" })).secret;
    const readerToken = (await createAccessToken(db, reviewer, { kind: "personal", name: "alerts" })).secret;
    const created = await callRoute(destinationsRoute.POST, {
      token: adminToken,
      body: { name: "api hooks", kind: "webhook", url: "https://hooks.example.com/alerts" },
    });
    expect(created.status).toBe(200);
    expect(created.json.signingSecret).toMatch(/^whsec_/);
    const destinationId = (created.json.destination as { id: string }).id;
    const rule = await callRoute(rulesRoute.POST, {
      token: adminToken,
      body: {
        name: "api money rule",
        kind: "resolved_money_held",
        thresholdCount: 1000,
        thresholdAmount: "2.50",
        thresholdCurrency: "USD",
        destinationId,
        enabled: false,
      },
    });
    expect(rule.status).toBe(200);
    expect(rule.json).toMatchObject({ thresholdMicros: 2_500_000, thresholdCurrency: "USD", enabled: false });
    const noCurrency = await callRoute(rulesRoute.POST, {
      token: adminToken,
      body: { name: "no currency", kind: "uncertainty_growth", thresholdAmount: "1", destinationId },
    });
    expect(noCurrency.status).toBe(400);
    expect(noCurrency.json.error?.issues).toContainEqual({ path: "thresholdCurrency", message: expect.any(String) });

    const settings = await callRoute(settingsRoute.GET, { token: adminToken });
    expect(JSON.stringify(settings.json)).not.toContain("whsec_");
    expect((await callRoute(settingsRoute.GET, { token: readerToken })).status).toBe(403);
    expect(
      (
        await callRoute(rulesRoute.POST, {
          token: readerToken,
          body: { name: "x", kind: "worker_silence", destinationId },
        })
      ).status,
    ).toBe(403);
    const firings = await callRoute(firingsRoute.GET, { token: readerToken, query: { limit: "5" } });
    expect(firings.status).toBe(200);
  });
});

describe("a case escalated past its deadline (Standard Webhooks)", () => {
  it("fires once, keeps its webhook-id on retry, re-notifies after the interval and resolves when cleared", async () => {
    const rule = await onlyRule("escalated_overdue", hooksId, { renotifyMinutes: 30 });
    await round();
    expect(await openFiring(rule.id)).toBeNull();

    const { caseId } = await parkCase(db, shop, parkInput("generation_failed", { retryDeadline: past(5) }));
    await escalateOverdueCases(db, worker());
    const pending = () => db.notificationOutbox.findMany({ where: { deliveredAt: null, alertDestinationId: hooksId } });
    await makeAlertRoundDue(db);
    await evaluateAlerts(db, { consoleUrl: CONSOLE });
    const [first] = await pending();
    refuseOnce.add(first?.id ?? "");
    await dispatchNotifications(ctx, Date.now() + 10_000);
    // Evaluated again while it holds: no second message, and the failed one waits for its retry.
    await round();
    const firing = await openFiring(rule.id);
    expect(firing).not.toBeNull();
    expect(await db.notificationOutbox.count({ where: { alertFiringId: firing?.id } })).toBe(1);
    await db.notificationOutbox.updateMany({ where: { id: first?.id }, data: { nextAttemptAt: new Date(0) } });
    await dispatchNotifications(ctx, Date.now() + 10_000);
    const attempts = hooks.received.filter((r) => r.webhookId === first?.id);
    expect(attempts.map((r) => [r.status, r.verified])).toEqual([
      [500, true],
      [200, true],
    ]);
    const fired = attempts[1]?.payload as Envelope;
    expect(fired.type).toBe("alert.firing");
    expect(fired.data.figures.count).toBe(rule.thresholdCount);
    expect(fired.data.link).toBe(`${CONSOLE}/queue?flag=escalated`);

    await round(later(20));
    expect(typesOf(firing?.id ?? "")).toEqual(["alert.firing"]);
    await round(later(31));
    expect(typesOf(firing?.id ?? "")).toEqual(["alert.firing", "alert.still_firing"]);

    await acceptFailure(db, reviewer, caseId, { evidence: "provider reported the failure" });
    await round(later(32));
    await round(later(33));
    expect(typesOf(firing?.id ?? "")).toEqual(["alert.firing", "alert.still_firing", "alert.resolved"]);
    for (const message of messagesOf(firing?.id ?? "")) expect(hooks.acceptedCount(message.webhookId)).toBe(1);

    const [listed] = await listAlertFirings(db, reviewer, parseInput(listAlertFiringsSchema, { ruleId: rule.id }));
    expect(listed).toMatchObject({
      status: "resolved",
      notifications: 2,
      figures: { count: rule.thresholdCount },
      lastFigures: { count: rule.thresholdCount - 1 },
      messages: { delivered: 3, failed: 0, pending: 0 },
    });
  });

  it("opens one episode however many evaluators run at once", async () => {
    await parkCase(db, shop, parkInput("polling", { retryDeadline: past(5) }));
    await escalateOverdueCases(db, worker());
    const rule = await onlyRule("escalated_overdue", hooksId, { above: 0 });
    const rounds = await Promise.all([1, 2, 3].map(() => evaluateAlerts(db, { consoleUrl: CONSOLE })));
    expect(rounds.filter((r) => r !== null)).toHaveLength(1);
    expect(rounds.filter((r) => r?.fired === 1)).toHaveLength(1);
    await evaluateAlerts(db, { consoleUrl: CONSOLE });
    expect(await db.alertFiring.count({ where: { ruleId: rule.id } })).toBe(1);
    await dispatchNotifications(ctx, Date.now() + 10_000);
    // Disabled, the rule's episode ends without a "resolved" message; enabled again, it starts afresh.
    const edit = {
      id: rule.id,
      name: rule.name,
      kind: rule.kind,
      thresholdCount: rule.thresholdCount,
      destinationId: hooksId,
    };
    await saveAlertRule(db, admin, parseInput(saveAlertRuleSchema, { ...edit, enabled: false }));
    expect(await openFiring(rule.id)).toBeNull();
    await saveAlertRule(db, admin, parseInput(saveAlertRuleSchema, { ...edit, enabled: true }));
    await evaluateAlerts(db, { consoleUrl: CONSOLE });
    expect(await db.alertFiring.count({ where: { ruleId: rule.id } })).toBe(2);
    await dispatchNotifications(ctx, Date.now() + 10_000);
  });
});

describe("a destination that answers 410 Gone", () => {
  it("is disabled, as a producer's endpoint would be, and sent nothing more", async () => {
    const created = await saveAlertDestination(
      db,
      admin,
      parseInput(alertDestinationBody, { name: "gone hooks", kind: "webhook", url: "http://127.0.0.1:9/hooks" }),
      { allow: TEST_RECEIVERS },
    );
    const gone = await startWebhookReceiver(created.signingSecret as string, () => 410);
    try {
      const id = created.destination.id;
      await saveAlertDestination(
        db,
        admin,
        parseInput(alertDestinationBody, { id, name: "gone hooks", kind: "webhook", url: gone.url }),
        { allow: TEST_RECEIVERS },
      );
      await parkCase(db, shop, parkInput("polling", { retryDeadline: past(5) }));
      await escalateOverdueCases(db, worker());
      const rule = await onlyRule("escalated_overdue", id, { above: 0 });
      await round();
      expect(gone.received.map((r) => [r.status, r.verified])).toEqual([[410, true]]);
      expect((await db.alertDestination.findUniqueOrThrow({ where: { id } })).disabledAt).not.toBeNull();
      // Its rule can tell nobody now: the episode ends quietly, and no round judges the rule meanwhile.
      expect(await openFiring(rule.id)).toBeNull();
      await round();
      expect(await db.alertFiring.count({ where: { ruleId: rule.id } })).toBe(1);
      const [message] = await db.notificationOutbox.findMany({ where: { alertDestinationId: id } });
      expect(message).toMatchObject({ lastStatus: 410, deliveredAt: null });
      expect(message?.giveUpAt).not.toBeNull();
    } finally {
      await gone.stop();
    }
  });
});

describe("a disabled destination", () => {
  it("is told nothing and counted as told nothing: its rules are not judged, and disabling it ends their episodes quietly", async () => {
    const options = { allow: TEST_RECEIVERS };
    const edit = { name: "muted channel", kind: "slack", url: slack.url };
    const muted = (
      await saveAlertDestination(db, admin, parseInput(alertDestinationBody, { ...edit, disabled: true }), options)
    ).destination.id;
    await parkCase(db, shop, parkInput("polling", { retryDeadline: past(5) }));
    await escalateOverdueCases(db, worker());
    const rule = await onlyRule("escalated_overdue", muted, { above: 0 });
    const before = slack.received.length;
    await makeAlertRoundDue(db);
    expect(await evaluateAlerts(db, { consoleUrl: CONSOLE })).toMatchObject({ evaluated: 0, fired: 0 });
    expect(await db.alertFiring.count({ where: { ruleId: rule.id } })).toBe(0);

    await saveAlertDestination(
      db,
      admin,
      parseInput(alertDestinationBody, { ...edit, id: muted, disabled: false }),
      options,
    );
    await round();
    expect(await openFiring(rule.id)).toMatchObject({ notifications: 1 });
    expect(slack.received).toHaveLength(before + 1);
    await saveAlertDestination(
      db,
      admin,
      parseInput(alertDestinationBody, { ...edit, id: muted, disabled: true }),
      options,
    );
    expect(await openFiring(rule.id)).toBeNull();
    await round();
    expect(slack.received).toHaveLength(before + 1);
    const [listed] = await listAlertFirings(db, reviewer, parseInput(listAlertFiringsSchema, { ruleId: rule.id }));
    expect(listed).toMatchObject({
      status: "resolved",
      notifications: 1,
      messages: { delivered: 1, failed: 0, pending: 0 },
    });
  });
});

describe("a rule given another kind or destination", () => {
  it("ends its open episode quietly, so the new definition starts its own", async () => {
    await parkCase(db, shop, parkInput("polling", { retryDeadline: past(5) }));
    await escalateOverdueCases(db, worker());
    const rule = await onlyRule("escalated_overdue", hooksId, { above: 0 });
    await round();
    const first = await openFiring(rule.id);
    expect(typesOf(first?.id ?? "")).toEqual(["alert.firing"]);
    const edit = { id: rule.id, name: rule.name, kind: rule.kind, thresholdCount: rule.thresholdCount };

    // New settings only: the same episode goes on, judged by them.
    await saveAlertRule(
      db,
      admin,
      parseInput(saveAlertRuleSchema, { ...edit, destinationId: hooksId, renotifyMinutes: 45 }),
    );
    expect((await openFiring(rule.id))?.id).toBe(first?.id);

    // Another destination: the episode ends without a "resolved" (nothing cleared); the channel hears of a new one.
    const before = slack.received.length;
    await saveAlertRule(db, admin, parseInput(saveAlertRuleSchema, { ...edit, destinationId: slackId }));
    expect(await openFiring(rule.id)).toBeNull();
    await round();
    const second = await openFiring(rule.id);
    expect(second?.id).not.toBe(first?.id);
    expect(slack.received).toHaveLength(before + 1);
    expect(typesOf(first?.id ?? "")).toEqual(["alert.firing"]);

    // Another kind, one that does not hold: the episode ends, and nobody is told it cleared.
    await saveAlertRule(
      db,
      admin,
      parseInput(saveAlertRuleSchema, {
        ...edit,
        kind: "suspected_duplicates",
        thresholdCount: 1000,
        destinationId: slackId,
      }),
    );
    expect(await openFiring(rule.id)).toBeNull();
    await round();
    expect(slack.received).toHaveLength(before + 1);
    expect(await db.alertFiring.findUniqueOrThrow({ where: { id: second?.id } })).toMatchObject({ notifications: 1 });
  });
});

describe("resolved cases with money still held (Standard Webhooks)", () => {
  it("fires with the money held and resolves when finance decides the hold", async () => {
    const rule = await onlyRule("resolved_money_held", hooksId);
    const { caseId } = await parkCase(db, shop, parkInput("generation_failed"));
    await acceptFailure(db, reviewer, caseId, { evidence: "provider reported the failure" });
    await round();
    const firing = await openFiring(rule.id);
    const [message] = messagesOf(firing?.id ?? "");
    const data = (message?.payload as Envelope | undefined)?.data;
    if (!data) throw new Error("no firing message");
    expect(data.figures.count).toBe(rule.thresholdCount);
    expect(data.figures.held).toContainEqual({ currency: "USD", micros: expect.stringMatching(/^\d+$/) });
    expect(data.link).toBe(`${CONSOLE}/queue?flag=hold_open`);

    const hold = await db.hold.findFirstOrThrow({ where: { caseId } });
    await resolveHold(db, finance, hold.id, { kind: "release", note: "no charge", evidence: "invoice shows none" });
    await round();
    expect(typesOf(firing?.id ?? "")).toEqual(["alert.firing", "alert.resolved"]);
  });
});

describe("growing uncertainty (money threshold)", () => {
  it("fires when the money in new uncertain submissions reaches the threshold and clears as the window passes", async () => {
    const before = await alertFigures(db, { kind: "uncertainty_growth", windowMinutes: 60 }, new Date());
    const heldBefore = before.held.find((m) => m.currency === "USD")?.micros ?? 0;
    const threshold = ((Number(heldBefore) + 200_000) / 1_000_000).toFixed(6);
    const rule = await onlyRule("uncertainty_growth", hooksId, { above: 1000, thresholdAmount: threshold });
    await parkCase(db, shop, parkInput("submission_uncertain"));
    await round();
    expect(await openFiring(rule.id)).toBeNull();
    await parkCase(db, shop, parkInput("submission_uncertain"));
    await round();
    const firing = await openFiring(rule.id);
    expect(typesOf(firing?.id ?? "")).toEqual(["alert.firing"]);
    await round(later(61));
    expect(typesOf(firing?.id ?? "")).toEqual(["alert.firing", "alert.resolved"]);
  });
});

describe("outputs about to expire and poison actions", () => {
  it("fires while an open case's outputs expire within the hour", async () => {
    const rule = await onlyRule("outputs_expiring", hooksId);
    const { caseId } = await parkCase(db, shop, parkInput("delivery"));
    await db.case.update({ where: { id: caseId }, data: { outputsExpireAt: later(20) } });
    await round();
    const firing = await openFiring(rule.id);
    expect(typesOf(firing?.id ?? "")).toEqual(["alert.firing"]);
    await db.case.update({ where: { id: caseId }, data: { outputsExpireAt: later(600) } });
    await round();
    expect(typesOf(firing?.id ?? "")).toEqual(["alert.firing", "alert.resolved"]);
  });

  it("fires on actions parked as poison within the window", async () => {
    const rule = await onlyRule("poison_actions", hooksId, { windowMinutes: 15 });
    // The sweep's own audit row (tests/integration/poison-actions.test.ts shows the sweep writing it).
    await recordAudit(db, { actor: worker(), kind: "poison_parked", evidence: { failures: [] } });
    await round();
    const firing = await openFiring(rule.id);
    expect(typesOf(firing?.id ?? "")).toEqual(["alert.firing"]);
    await round(later(16));
    expect(typesOf(firing?.id ?? "")).toEqual(["alert.firing", "alert.resolved"]);
  });
});

describe("provider error rate", () => {
  it("fires when a provider's share of unanswered status checks in the window reaches the threshold", async () => {
    const rule = await onlyRule("provider_error_rate", hooksId, { windowMinutes: 15 });
    await saveAlertRule(
      db,
      admin,
      parseInput(saveAlertRuleSchema, {
        id: rule.id,
        name: rule.name,
        kind: rule.kind,
        thresholdCount: 50,
        windowMinutes: 15,
        destinationId: hooksId,
      }),
    );
    const { caseId } = await parkCase(db, shop, parkInput("polling", { provider: "fal", model: "fal-ai/veo3" }));
    const { attemptRef } = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    // Status checks as a claim records them (one row per answer, with its action).
    const check = (kind: string) =>
      db.providerObservation.create({ data: { caseId, attemptRef, actionId: randomUUID(), kind } });
    for (const kind of ["unknown", "unknown", "running", "running"]) await check(kind);
    await round();
    expect(await openFiring(rule.id)).toBeNull(); // 4 checks: too few to judge a rate
    await check("unknown");
    await round();
    const firing = await openFiring(rule.id);
    const [message] = messagesOf(firing?.id ?? "");
    expect((message?.payload as { data: { summary: string } } | undefined)?.data.summary).toContain(
      "fal: 3 of 5 status checks got no answer (60%)",
    );
    await round(later(16));
    expect(typesOf(firing?.id ?? "")).toEqual(["alert.firing", "alert.resolved"]);
  });
});

describe("provider paused", () => {
  it("fires while a provider's unknown-outcome breaker refuses sends, and resolves when an admin resumes it", async () => {
    const rule = await onlyRule("provider_paused", hooksId);
    await saveProviderBreaker(db, admin, { provider: "luma", unknownPercent: 50, windowSeconds: 600, minOutcomes: 2 });
    await round();
    expect(await openFiring(rule.id)).toBeNull();
    // Paused as a tripped breaker leaves it (the trip itself is driven in send-gate.test.ts).
    await openPause(
      db,
      { kind: "provider", value: "luma", cause: "breaker" },
      { reason: "Too many unknowns.", pausedById: null, pausedByLabel: "Unknown-outcome breaker", untilSeconds: 600 },
    );
    await round();
    const firing = await openFiring(rule.id);
    expect(firing).not.toBeNull();
    const [message] = messagesOf(firing?.id ?? "");
    expect((message?.payload as { data: { summary: string } } | undefined)?.data.summary).toContain(
      "1 pause by the unknown-outcome breaker",
    );
    await resumeProviderBreaker(db, admin, "luma");
    await round();
    expect(typesOf(firing?.id ?? "")).toEqual(["alert.firing", "alert.resolved"]);
  });
});

describe("suspected duplicates", () => {
  it("fires while a suspected duplicate charge stands and resolves when it is withdrawn", async () => {
    const rule = await onlyRule("suspected_duplicates", slackId);
    const { caseId } = await parkCase(db, shop, parkInput("generation_failed"));
    const { requestId } = await requestReplacement(db, reviewer, caseId, { evidence: "content filter" });
    await authorizeReplacement(db, finance, requestId, { evidence: "budget approved" });
    const request = await db.replacementRequest.findUniqueOrThrow({ where: { id: requestId } });
    // The flag as the watch writes it when the original job turns up (tests/integration/look-again.test.ts).
    const flag = await db.suspectedDuplicate.create({
      data: {
        caseId,
        requestId,
        originalAttemptRef: request.originalAttemptRef,
        replacementAttemptRef: request.newAttemptRef as string,
        providerJobId: `job-late-${caseId}`,
      },
    });
    const before = slack.received.length;
    await round();
    expect(slack.received.length).toBe(before + 1);
    expect((slack.received[before]?.body as { text: string } | undefined)?.text).toContain(
      `<${CONSOLE}/finance|Open in the console>`,
    );
    const firing = await openFiring(rule.id);
    expect(firing?.figures).toMatchObject({ count: rule.thresholdCount });
    await db.suspectedDuplicate.update({ where: { id: flag.id }, data: { withdrawn: true } });
    await round();
    expect(slack.received.length).toBe(before + 2);
    expect((slack.received[before + 1]?.body as { text: string } | undefined)?.text).toMatch(
      /^:white_check_mark: Resolved/,
    );
  });
});

describe("worker silence (Slack-compatible)", () => {
  it("tells the channel when no worker has ticked for the window, with a link, and when ticks resume", async () => {
    const rule = await onlyRule("worker_silence", slackId, { windowMinutes: 5 });
    const tick = () => runTick(ctx, worker("alerts-worker"), { maxTasks: 1 });
    await db.workerHeartbeat.create({
      data: { workerId: "long-gone", lastTickAt: new Date(Date.now() - 8 * 86_400_000) },
    });
    await tick();
    expect(await db.workerHeartbeat.count({ where: { workerId: "long-gone" } })).toBe(0);
    const beat = await db.workerHeartbeat.findUniqueOrThrow({ where: { workerId: "alerts-worker" } });
    expect(Date.now() - beat.lastTickAt.getTime()).toBeLessThan(MINUTE);
    expect(await openFiring(rule.id)).toBeNull();

    const before = slack.received.length;
    await db.workerHeartbeat.updateMany({ data: { lastTickAt: new Date(Date.now() - 6 * MINUTE) } });
    await round();
    expect(slack.received).toHaveLength(before + 1);
    const firingMessage = slack.received[before];
    expect(firingMessage?.headers["webhook-signature"]).toBeUndefined();
    expect((firingMessage?.body as { text: string } | undefined)?.text).toMatch(
      new RegExp(
        `^:rotating_light: Alert firing: \\*worker_silence \\w+\\* \\(Worker silence\\)\\. no worker has ticked for 6 min .*<${CONSOLE}/admin/worker-tokens\\|Open in the console>$`,
      ),
    );
    await round();
    expect(slack.received).toHaveLength(before + 1);

    // A tick beats, evaluates (the round due) and sends in the same round.
    await makeAlertRoundDue(db);
    await tick();
    expect(slack.received).toHaveLength(before + 2);
    expect((slack.received[before + 1]?.body as { text: string } | undefined)?.text).toMatch(
      /^:white_check_mark: Resolved: \*worker_silence/,
    );
  });
});

describe("the console's own round", () => {
  it("notices silence with no worker ticking, and sends alerts only (producers' notifications wait for a worker)", async () => {
    const rule = await onlyRule("worker_silence", slackId, { windowMinutes: 5 });
    await db.workerHeartbeat.updateMany({ data: { lastTickAt: new Date(Date.now() - 10 * MINUTE) } });
    const producerMessage = webhookMessage("case.resolved", { caseId: "c" });
    await db.notificationOutbox.create({
      data: {
        id: producerMessage.id,
        producer: "alerts-shop",
        eventType: "case.resolved",
        payload: producerMessage.payload,
      },
    });
    const before = slack.received.length;
    // No worker took the round for a whole interval: the console takes it.
    await db.alertSchedule.update({ where: { id: true }, data: { nextRunAt: new Date(Date.now() - MINUTE) } });
    await watchAlerts(ctx);
    expect(await openFiring(rule.id)).not.toBeNull();
    expect(slack.received).toHaveLength(before + 1);
    expect((slack.received[before]?.body as { text: string } | undefined)?.text).toContain(
      "no worker has ticked for 10 min",
    );
    const waiting = await db.notificationOutbox.findUniqueOrThrow({ where: { id: producerMessage.id } });
    expect(waiting).toMatchObject({ attempts: 0, deliveredAt: null, giveUpAt: null });
  });
});
