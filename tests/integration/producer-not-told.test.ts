import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AlertRuleSettings, conditionHolds } from "@/lib/domain/alert-rules";
import { MAX_WEBHOOK_ATTEMPTS } from "@/lib/domain/webhook-retry";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import type { Family } from "@/lib/metrics/figures";
import type { UserActor } from "@/lib/services/access/actor";
import { alertFigures } from "@/lib/services/alert/alert-figures";
import { getCase } from "@/lib/services/case/get-case";
import { listCases } from "@/lib/services/case/list-cases";
import { parkCase } from "@/lib/services/case/park-case";
import { enqueueNotification } from "@/lib/services/notification/enqueue-notification";
import { generateSigningSecret } from "@/lib/services/notification/notification-endpoint-signature";
import {
  RESENDS_PER_CASE_PER_HOUR,
  resendCaseNotifications,
  resendOwnNotifications,
} from "@/lib/services/notification/resend-notifications";
import { setEndpointDisabled } from "@/lib/services/notification/set-endpoint-disabled";
import { metricsSnapshot } from "@/lib/services/overview/metrics-snapshot";
import { overviewStats } from "@/lib/services/overview/overview-stats";
import { listCasesSchema } from "@/lib/validation/list-cases";
import { dispatchNotifications } from "@/lib/worker/dispatch-notifications";
import type { WorkerContext } from "@/lib/worker/worker-context";
import { makeUser, parkInput, producer } from "./fixtures";
import { startWebhookReceiver, type WebhookReceiver } from "./helpers/webhook-receiver";
import { TEST_RECEIVERS, testWorkerContext } from "./helpers/worker-context";
import { openTestDb } from "./setup/test-db";

// Decision 045: a producer's notification that is given up (a 410, or its last send failed) flags
// its case "producer not told", counts in the overview, the metrics and an alert rule, and can be
// sent again (bounded, audited) from the console or by the producer; a delivered resend clears it.
process.env.WORKER_LOG = "0";
const { db } = openTestDb();
const shop = producer("not-told-shop");
const secret = generateSigningSecret();
const resendOptions = { send: { allow: TEST_RECEIVERS }, random: () => 0.5 };
let answer = 200;
let receiver: WebhookReceiver;
let ctx: WorkerContext;
let operator: UserActor;

beforeAll(async () => {
  receiver = await startWebhookReceiver(secret, () => answer);
  // The tests send webhooks only: the provider adapters are never called.
  ctx = await testWorkerContext(db, "http://127.0.0.1:9");
  await db.notificationEndpoint.create({ data: { producer: shop.name, url: receiver.url, signingSecret: secret } });
  operator = await makeUser(db, ["operator"]);
});
afterAll(() => receiver.stop());

/** A case of the shop's with one message about it in the outbox, as the delivery writes it. */
async function caseWithMessage() {
  const input = parkInput("delivery");
  const { caseId } = await parkCase(db, shop, input);
  const messageId = await db.$transaction((tx) =>
    enqueueNotification(tx, {
      producer: shop.name,
      caseId: String(caseId),
      type: "case.delivered",
      data: { operationId: input.operationId },
    }),
  );
  if (!messageId) throw new Error("the shop's endpoint took no message");
  return { caseId: String(caseId), operationId: input.operationId, messageId };
}

/** Worker rounds until the message is given up, each one sending it (its backoff skipped). */
async function sendUntilGivenUp(messageId: string) {
  for (let round = 0; round < MAX_WEBHOOK_ATTEMPTS; round++) {
    await dispatchNotifications(ctx, Date.now() + 10_000);
    const row = await db.notificationOutbox.findUniqueOrThrow({ where: { id: messageId } });
    if (row.giveUpAt) return row;
    await db.$executeRaw`UPDATE notification_outbox SET next_attempt_at = now() WHERE id = ${messageId}`;
  }
  throw new Error("the message was never given up");
}

const gauge = async () =>
  (await metricsSnapshot(db)).find((f: Family) => f.name === "recovery_producer_not_told_cases")?.samples[0]?.value;
const overviewCount = async () =>
  (await overviewStats(db, operator, { alertWindowMinutes: 60, alertThreshold: 1_000, producers: [shop.name] }))
    .producerNotTold;
const alertCount = async () =>
  (await alertFigures(db, { kind: "producer_not_told", windowMinutes: 60 }, new Date())).count;
const flagged = async () =>
  (await listCases(db, operator, listCasesSchema.parse({ flag: "producer_not_told" }))).items.map((c) => c.id);

/** The AppError a call is refused with; the test fails if it succeeds or fails otherwise. */
const refusal = (work: Promise<unknown>): Promise<AppError> =>
  work.then(
    () => Promise.reject(new Error("expected a refusal")),
    (error: unknown) => (error instanceof AppError ? error : Promise.reject(error)),
  );

describe("a producer notification given up after every send failed", () => {
  it("flags the case, counts in the overview, the metric and the alert rule, and a delivered resend clears it", async () => {
    const before = { gauge: await gauge(), alert: await alertCount() };
    answer = 500;
    const { caseId, messageId } = await caseWithMessage();
    const given = await sendUntilGivenUp(messageId);
    expect(given).toMatchObject({ attempts: MAX_WEBHOOK_ATTEMPTS, lastStatus: 500, deliveredAt: null });
    expect(receiver.received.filter((r) => r.webhookId === messageId)).toHaveLength(MAX_WEBHOOK_ATTEMPTS);

    const detail = await getCase(db, operator, caseId, env());
    expect(detail.producerNotTold).toEqual([
      expect.objectContaining({ webhookId: messageId, eventType: "case.delivered", sends: 12, lastStatus: 500 }),
    ]);
    expect(await overviewCount()).toBe(1);
    expect(await gauge()).toBe((before.gauge ?? 0) + 1);
    const figures = await alertFigures(db, { kind: "producer_not_told", windowMinutes: 60 }, new Date());
    expect(figures.count).toBe(before.alert + 1);
    const rule: AlertRuleSettings = {
      kind: "producer_not_told",
      thresholdCount: 1,
      thresholdMicros: null,
      thresholdCurrency: null,
      windowMinutes: 60,
    };
    expect(conditionHolds(rule, figures, new Date())).toBe(true);
    expect(await flagged()).toContain(caseId);

    answer = 200;
    const resent = await resendCaseNotifications(db, operator, caseId, resendOptions);
    expect(resent).toEqual({
      resent: [{ webhookId: messageId, eventType: "case.delivered", delivered: true, status: 200 }],
      producerNotTold: false,
    });
    expect(receiver.acceptedCount(messageId)).toBe(1);
    const delivered = receiver.received.find((r) => r.webhookId === messageId && r.status === 200);
    expect(delivered?.verified).toBe(true);

    expect((await getCase(db, operator, caseId, env())).producerNotTold).toEqual([]);
    expect(await overviewCount()).toBe(0);
    expect(await gauge()).toBe(before.gauge ?? 0);
    expect(await alertCount()).toBe(before.alert);
    expect(await flagged()).not.toContain(caseId);
    const audit = await db.auditEvent.findFirstOrThrow({ where: { caseId, kind: "notification_resent" } });
    expect(audit).toMatchObject({ actorKind: "user", actorId: operator.userId });
    expect(audit.evidence).toEqual({ webhookIds: [messageId], eventTypes: ["case.delivered"] });
  });
});

describe("a producer notification answered 410 Gone", () => {
  it("is given up at once; the resend waits for the endpoint to be enabled, then the producer resends it", async () => {
    answer = 410;
    const { caseId, operationId, messageId } = await caseWithMessage();
    const given = await sendUntilGivenUp(messageId);
    expect(given).toMatchObject({ attempts: 1, lastStatus: 410 });
    expect((await db.notificationEndpoint.findUniqueOrThrow({ where: { producer: shop.name } })).disabledAt).not.toBe(
      null,
    );
    expect((await getCase(db, operator, caseId, env())).producerNotTold).toHaveLength(1);
    expect(await overviewCount()).toBe(1);

    const disabled = await refusal(resendOwnNotifications(db, shop, operationId, resendOptions));
    expect([disabled.code, disabled.status]).toEqual(["endpoint_disabled", 409]);
    expect((await getCase(db, operator, caseId, env())).producerNotTold).toHaveLength(1);

    await setEndpointDisabled(db, shop, { disabled: false });
    answer = 200;
    const resent = await resendOwnNotifications(db, shop, operationId, resendOptions);
    expect(resent.resent).toEqual([
      { webhookId: messageId, eventType: "case.delivered", delivered: true, status: 200 },
    ]);
    expect(resent.producerNotTold).toBe(false);
    expect(await overviewCount()).toBe(0);
    const audit = await db.auditEvent.findFirstOrThrow({ where: { caseId, kind: "notification_resent" } });
    expect(audit.actorKind).toBe("api_key");

    const other = await refusal(resendOwnNotifications(db, producer("another-shop"), operationId, resendOptions));
    expect(other.code).toBe("not_found");
  });
});

describe("resends", () => {
  it("are bounded per case: a failed one is given up again, and past the limit an hour they are refused (429)", async () => {
    answer = 503;
    const { caseId, messageId } = await caseWithMessage();
    await sendUntilGivenUp(messageId);
    for (let i = 0; i < RESENDS_PER_CASE_PER_HOUR; i++) {
      const resent = await resendCaseNotifications(db, operator, caseId, resendOptions);
      expect(resent).toEqual({
        resent: [{ webhookId: messageId, eventType: "case.delivered", delivered: false, status: 503 }],
        producerNotTold: true,
      });
    }
    const sends = receiver.received.filter((r) => r.webhookId === messageId).length;
    expect(sends).toBe(MAX_WEBHOOK_ATTEMPTS + RESENDS_PER_CASE_PER_HOUR);
    const limited = await refusal(resendCaseNotifications(db, operator, caseId, resendOptions));
    expect([limited.code, limited.status]).toEqual(["rate_limited", 429]);
    expect(limited.extra.retryAfterSeconds).toBeGreaterThan(0);
    expect(receiver.received.filter((r) => r.webhookId === messageId)).toHaveLength(sends);
    expect(await db.auditEvent.count({ where: { caseId, kind: "notification_resent" } })).toBe(
      RESENDS_PER_CASE_PER_HOUR,
    );
  });

  it("of a case with nothing given up are refused (409), and need a role that may tell the producer", async () => {
    answer = 200;
    const { caseId } = await caseWithMessage();
    await dispatchNotifications(ctx, Date.now() + 10_000);
    const nothing = await refusal(resendCaseNotifications(db, operator, caseId, resendOptions));
    expect([nothing.code, nothing.status]).toEqual(["nothing_to_resend", 409]);
    for (const roles of [["viewer"], ["finance"]] as const) {
      const refused = await refusal(resendCaseNotifications(db, await makeUser(db, [...roles]), caseId, resendOptions));
      expect(refused.code).toBe("forbidden");
    }
  });
});
