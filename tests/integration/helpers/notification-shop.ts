import { afterAll, beforeAll } from "vitest";
import type { PrismaClient } from "@/lib/db/client";
import { MAX_WEBHOOK_ATTEMPTS } from "@/lib/domain/webhook-retry";
import type { UserActor } from "@/lib/services/access/actor";
import { parkCase } from "@/lib/services/case/park-case";
import { enqueueNotification } from "@/lib/services/notification/enqueue-notification";
import { generateSigningSecret } from "@/lib/services/notification/notification-endpoint-signature";
import { dispatchNotifications } from "@/lib/worker/dispatch-notifications";
import type { WorkerContext } from "@/lib/worker/worker-context";
import { makeUser, parkInput, producer } from "@/tests/integration/fixtures";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver";
import { testWorkerContext } from "./worker-context";

/**
 * A producer with a notification endpoint on a real HTTP receiver that answers whatever status the
 * test sets, a worker context that only sends webhooks (the provider adapters are never called) and
 * an operator to read and act as. Registers its own beforeAll/afterAll, so call it at file level.
 */
export function notificationShop(db: PrismaClient, name: string, firstAnswer = 200) {
  const shop = producer(name);
  const secret = generateSigningSecret();
  const state: { answer: number; receiver?: WebhookReceiver; ctx?: WorkerContext; operator?: UserActor } = {
    answer: firstAnswer,
  };
  beforeAll(async () => {
    state.receiver = await startWebhookReceiver(secret, () => state.answer);
    state.ctx = await testWorkerContext(db, "http://127.0.0.1:9");
    await db.notificationEndpoint.create({
      data: { producer: shop.name, url: state.receiver.url, signingSecret: secret },
    });
    state.operator = await makeUser(db, ["operator"]);
  });
  afterAll(() => state.receiver?.stop());
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the notification shop is used before its beforeAll ran");
    return value;
  };

  return {
    shop,
    /** The status the receiver answers every later send with. */
    answerWith(status: number) {
      state.answer = status;
    },
    get ctx(): WorkerContext {
      return ready(state.ctx);
    },
    get receiver(): WebhookReceiver {
      return ready(state.receiver);
    },
    get operator(): UserActor {
      return ready(state.operator);
    },
    /** A case of the shop's with one message about it in the outbox, as the delivery writes it. */
    async caseWithMessage() {
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
    },
    /** One worker round that sends this message now (its backoff skipped). */
    async sendRound(messageId: string) {
      await db.$executeRaw`UPDATE notification_outbox SET next_attempt_at = now() WHERE id = ${messageId}`;
      await dispatchNotifications(ready(state.ctx), Date.now() + 10_000);
    },
    /** Worker rounds until the message is given up, each one sending it (its backoff skipped). */
    async sendUntilGivenUp(messageId: string) {
      for (let round = 0; round < MAX_WEBHOOK_ATTEMPTS; round++) {
        await dispatchNotifications(ready(state.ctx), Date.now() + 10_000);
        const row = await db.notificationOutbox.findUniqueOrThrow({ where: { id: messageId } });
        if (row.giveUpAt) return row;
        await db.$executeRaw`UPDATE notification_outbox SET next_attempt_at = now() WHERE id = ${messageId}`;
      }
      throw new Error("the message was never given up");
    },
  };
}
