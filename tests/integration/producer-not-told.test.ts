import { describe, expect, it } from "vitest";
import { type AlertRuleSettings, conditionHolds } from "@/lib/domain/alert-rules";
import { MAX_WEBHOOK_ATTEMPTS } from "@/lib/domain/webhook-retry";
import { env } from "@/lib/env";
import type { Family } from "@/lib/metrics/figures";
import { alertFigures } from "@/lib/services/alert/alert-figures";
import { getCase } from "@/lib/services/case/get-case";
import { listCases } from "@/lib/services/case/list-cases";
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
import { makeUser, producer } from "./fixtures";
import { notificationShop } from "./helpers/notification-shop";
import { refusal } from "./helpers/refusal";
import { TEST_RECEIVERS } from "./helpers/worker-context";
import { openTestDb } from "./setup/test-db";

// Decision 045: a producer's notification that is given up (a 410, or its last send failed) flags
// its case "producer not told", counts in the overview, the metrics and an alert rule, and can be
// sent again (bounded, audited) from the console or by the producer; a delivered resend clears it.
process.env.WORKER_LOG = "0";
const { db } = openTestDb();
const notify = notificationShop(db, "not-told-shop", 200);
const { shop, caseWithMessage, sendUntilGivenUp } = notify;
const resendOptions = { send: { allow: TEST_RECEIVERS }, random: () => 0.5 };

const gauge = async () =>
  (await metricsSnapshot(db)).find((f: Family) => f.name === "recovery_producer_not_told_cases")?.samples[0]?.value;
const overviewCount = async () =>
  (await overviewStats(db, notify.operator, { alertWindowMinutes: 60, alertThreshold: 1_000, producers: [shop.name] }))
    .producerNotTold;
const alertCount = async () =>
  (await alertFigures(db, { kind: "producer_not_told", windowMinutes: 60 }, new Date())).count;
const flagged = async () =>
  (await listCases(db, notify.operator, listCasesSchema.parse({ flag: "producer_not_told" }))).items.map((c) => c.id);

describe("a producer notification given up after every send failed", () => {
  it("flags the case, counts in the overview, the metric and the alert rule, and a delivered resend clears it", async () => {
    const before = { gauge: await gauge(), alert: await alertCount() };
    notify.answerWith(500);
    const { caseId, messageId } = await caseWithMessage();
    const given = await sendUntilGivenUp(messageId);
    expect(given).toMatchObject({ attempts: MAX_WEBHOOK_ATTEMPTS, lastStatus: 500, deliveredAt: null });
    expect(notify.receiver.received.filter((r) => r.webhookId === messageId)).toHaveLength(MAX_WEBHOOK_ATTEMPTS);

    const detail = await getCase(db, notify.operator, caseId, env());
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

    notify.answerWith(200);
    const resent = await resendCaseNotifications(db, notify.operator, caseId, resendOptions);
    expect(resent).toEqual({
      resent: [{ webhookId: messageId, eventType: "case.delivered", delivered: true, status: 200 }],
      producerNotTold: false,
    });
    expect(notify.receiver.acceptedCount(messageId)).toBe(1);
    const delivered = notify.receiver.received.find((r) => r.webhookId === messageId && r.status === 200);
    expect(delivered?.verified).toBe(true);

    expect((await getCase(db, notify.operator, caseId, env())).producerNotTold).toEqual([]);
    expect(await overviewCount()).toBe(0);
    expect(await gauge()).toBe(before.gauge ?? 0);
    expect(await alertCount()).toBe(before.alert);
    expect(await flagged()).not.toContain(caseId);
    const audit = await db.auditEvent.findFirstOrThrow({ where: { caseId, kind: "notification_resent" } });
    expect(audit).toMatchObject({ actorKind: "user", actorId: notify.operator.userId });
    expect(audit.evidence).toEqual({ webhookIds: [messageId], eventTypes: ["case.delivered"] });
  });
});

describe("a producer notification answered 410 Gone", () => {
  it("is given up at once; the resend waits for the endpoint to be enabled, then the producer resends it", async () => {
    notify.answerWith(410);
    const { caseId, operationId, messageId } = await caseWithMessage();
    const given = await sendUntilGivenUp(messageId);
    expect(given).toMatchObject({ attempts: 1, lastStatus: 410 });
    expect((await db.notificationEndpoint.findUniqueOrThrow({ where: { producer: shop.name } })).disabledAt).not.toBe(
      null,
    );
    expect((await getCase(db, notify.operator, caseId, env())).producerNotTold).toHaveLength(1);
    expect(await overviewCount()).toBe(1);

    const disabled = await refusal(resendOwnNotifications(db, shop, operationId, resendOptions));
    expect([disabled.code, disabled.status]).toEqual(["endpoint_disabled", 409]);
    expect((await getCase(db, notify.operator, caseId, env())).producerNotTold).toHaveLength(1);

    await setEndpointDisabled(db, shop, { disabled: false });
    notify.answerWith(200);
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
    notify.answerWith(503);
    const { caseId, messageId } = await caseWithMessage();
    await sendUntilGivenUp(messageId);
    for (let i = 0; i < RESENDS_PER_CASE_PER_HOUR; i++) {
      const resent = await resendCaseNotifications(db, notify.operator, caseId, resendOptions);
      expect(resent).toEqual({
        resent: [{ webhookId: messageId, eventType: "case.delivered", delivered: false, status: 503 }],
        producerNotTold: true,
      });
    }
    const sends = notify.receiver.received.filter((r) => r.webhookId === messageId).length;
    expect(sends).toBe(MAX_WEBHOOK_ATTEMPTS + RESENDS_PER_CASE_PER_HOUR);
    const limited = await refusal(resendCaseNotifications(db, notify.operator, caseId, resendOptions));
    expect([limited.code, limited.status]).toEqual(["rate_limited", 429]);
    expect(limited.extra.retryAfterSeconds).toBeGreaterThan(0);
    expect(notify.receiver.received.filter((r) => r.webhookId === messageId)).toHaveLength(sends);
    expect(await db.auditEvent.count({ where: { caseId, kind: "notification_resent" } })).toBe(
      RESENDS_PER_CASE_PER_HOUR,
    );
  });

  it("of a case with nothing given up are refused (409), and need a role that may tell the producer", async () => {
    notify.answerWith(200);
    const { caseId } = await caseWithMessage();
    await dispatchNotifications(notify.ctx, Date.now() + 10_000);
    const nothing = await refusal(resendCaseNotifications(db, notify.operator, caseId, resendOptions));
    expect([nothing.code, nothing.status]).toEqual(["nothing_to_resend", 409]);
    for (const roles of [["viewer"], ["finance"]] as const) {
      const refused = await refusal(resendCaseNotifications(db, await makeUser(db, [...roles]), caseId, resendOptions));
      expect(refused.code).toBe("forbidden");
    }
  });
});
