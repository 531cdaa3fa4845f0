import { describe, expect, it } from "vitest";
import { REQUEUES_PER_NOTIFICATION_PER_HOUR } from "@/lib/domain/notification-attempts";
import { MAX_WEBHOOK_ATTEMPTS } from "@/lib/domain/webhook-retry";
import { caseNotificationLog } from "@/lib/services/notification/case-notification-log";
import { requeueNotification } from "@/lib/services/notification/requeue-notification";
import { dispatchNotifications } from "@/lib/worker/dispatch-notifications";
import { makeUser } from "./fixtures";
import { notificationShop } from "./helpers/notification-shop";
import { refusal } from "./helpers/refusal";
import { openTestDb } from "./setup/test-db";

// Decision 066: a case page lists each producer notification with every send's answer, and a person
// who may tell the producer puts one back in the queue, bounded per notification per hour and audited.
process.env.WORKER_LOG = "0";
const { db } = openTestDb();
const notify = notificationShop(db, "log-shop", 503);
const { caseWithMessage, sendRound } = notify;

describe("a case's notification log", () => {
  it("lists every send with its answer in words, its status code and its time", async () => {
    const { caseId, messageId } = await caseWithMessage();
    notify.answerWith(503);
    await sendRound(messageId);
    notify.answerWith(204);
    await sendRound(messageId);
    const [logged] = await caseNotificationLog(db, notify.operator, caseId);
    expect(logged).toMatchObject({
      webhookId: messageId,
      eventType: "case.delivered",
      state: "delivered",
      sendCount: 2,
    });
    expect(logged?.sends.map((s) => [s.outcome, s.status])).toEqual([
      ["error_answer", 503],
      ["delivered", 204],
    ]);
    expect(new Date(logged?.sends[0]?.answeredAt ?? "").getTime()).not.toBeNaN();
  });

  it("is not found for a person outside the producer's scope", async () => {
    const { caseId } = await caseWithMessage();
    const scoped = { ...(await makeUser(db, ["operator"])), producers: ["another-shop"] };
    expect((await refusal(caseNotificationLog(db, scoped, caseId))).code).toBe("not_found");
  });
});

describe("sending a notification again", () => {
  it("re-queues a delivered or given-up message as one more send, audited with who asked", async () => {
    const { caseId, messageId } = await caseWithMessage();
    notify.answerWith(204);
    await sendRound(messageId);
    await requeueNotification(db, notify.operator, { caseId, webhookId: messageId });
    const row = await db.notificationOutbox.findUniqueOrThrow({ where: { id: messageId } });
    expect(row.deliveredAt).toBeNull();
    expect(row.giveUpAt).toBeNull();
    expect(row.attempts).toBe(MAX_WEBHOOK_ATTEMPTS - 1);
    const events = await db.auditEvent.findMany({ where: { caseId, kind: "notification_requeued" } });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ actorId: notify.operator.userId, actorLabel: notify.operator.email });
    expect(events[0]?.evidence).toMatchObject({ webhookId: messageId, wasDelivered: true });
    // It is the worker that sends it; a failure now gives up at once instead of backing off for days.
    notify.answerWith(500);
    await dispatchNotifications(notify.ctx, Date.now() + 10_000);
    const after = await db.notificationOutbox.findUniqueOrThrow({ where: { id: messageId } });
    expect(after.giveUpAt).not.toBeNull();
    const [logged] = await caseNotificationLog(db, notify.operator, caseId);
    expect(logged?.sends.map((s) => s.outcome)).toEqual(["delivered", "error_answer"]);
    expect(logged?.state).toBe("given_up");
  });

  it("refuses a message already waiting, and goes no further than its bound an hour", async () => {
    const { caseId, messageId } = await caseWithMessage();
    expect((await refusal(requeueNotification(db, notify.operator, { caseId, webhookId: messageId }))).code).toBe(
      "conflict",
    );
    notify.answerWith(204);
    for (let i = 0; i < REQUEUES_PER_NOTIFICATION_PER_HOUR; i++) {
      await sendRound(messageId);
      await requeueNotification(db, notify.operator, { caseId, webhookId: messageId });
    }
    await sendRound(messageId);
    const limited = await refusal(requeueNotification(db, notify.operator, { caseId, webhookId: messageId }));
    expect(limited.code).toBe("rate_limited");
    expect(limited.extra.retryAfterSeconds).toBeGreaterThan(0);
    expect(await db.auditEvent.count({ where: { caseId, kind: "notification_requeued" } })).toBe(
      REQUEUES_PER_NOTIFICATION_PER_HOUR,
    );
  });

  it("is refused to a role that may not tell the producer, and to a message of another case", async () => {
    const { caseId, messageId } = await caseWithMessage();
    const other = await caseWithMessage();
    notify.answerWith(204);
    await sendRound(messageId);
    const viewer = await makeUser(db, ["viewer"]);
    expect((await refusal(requeueNotification(db, viewer, { caseId, webhookId: messageId }))).code).toBe("forbidden");
    expect(
      (await refusal(requeueNotification(db, notify.operator, { caseId: other.caseId, webhookId: messageId }))).code,
    ).toBe("not_found");
  });
});
