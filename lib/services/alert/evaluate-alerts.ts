import type { Db, Prisma } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { ALERT_MESSAGE_TYPES, type AlertMessageStep, nextAlertStep } from "@/lib/domain/alert-episodes";
import { type AlertMessageInput, alertSlackMessage, alertWebhookData } from "@/lib/domain/alert-messages";
import { type AlertFigures, conditionHolds } from "@/lib/domain/alert-rules";
import { webhookMessage } from "../notification/enqueue-notification";
import { alertFigures } from "./alert-figures";

/** Evaluators exclude each other: a second worker skips the round rather than waits (or doubles it). */
const ALERT_LOCK = 72_707_371;

export type AlertRound = { evaluated: number; fired: number; renotified: number; resolved: number } | null;

/**
 * One evaluation of every enabled rule, in one transaction under an advisory lock (null when
 * another process holds it): each rule's figures are read, the pure step decides, and the firing
 * and its message are written together, so a message exists exactly when its episode changed.
 * The unique index on open firings backs the lock up: two rounds can never open two episodes.
 * Messages are sent later by the dispatcher, from the outbox (side effects after commit).
 */
export async function evaluateAlerts(db: Db, options: { consoleUrl: string; now?: Date }): Promise<AlertRound> {
  const now = options.now ?? new Date();
  return inTransaction(db, async (tx) => {
    const [lock] = await tx.$queryRaw<{ ok: boolean }[]>`SELECT pg_try_advisory_xact_lock(${ALERT_LOCK}) AS ok`;
    if (!lock?.ok) return null;
    const rules = await tx.alertRule.findMany({
      where: { enabled: true },
      include: { destination: true, firings: { where: { resolvedAt: null } } },
      orderBy: { createdAt: "asc" },
    });
    const round = { evaluated: 0, fired: 0, renotified: 0, resolved: 0 };
    for (const rule of rules) {
      const settings = {
        ...rule,
        thresholdMicros: rule.thresholdMicros === null ? null : Number(rule.thresholdMicros),
      };
      const figures = await alertFigures(tx, rule, now);
      const open = rule.firings[0] ?? null;
      const step = nextAlertStep({
        holds: conditionHolds(settings, figures, now),
        open,
        renotifyMinutes: rule.renotifyMinutes,
        now,
      });
      round.evaluated += 1;
      if (step === "quiet" || step === "hold") continue;
      const json = figures as unknown as Prisma.InputJsonObject;
      const firing =
        step === "fire"
          ? await tx.alertFiring.create({
              data: { ruleId: rule.id, startedAt: now, lastNotifiedAt: now, figures: json, lastFigures: json },
            })
          : await tx.alertFiring.update({
              where: { id: (open as { id: string }).id },
              data:
                step === "resolve"
                  ? { resolvedAt: now, lastFigures: json }
                  : { lastNotifiedAt: now, notifications: { increment: 1 }, lastFigures: json },
            });
      round[step === "fire" ? "fired" : step === "renotify" ? "renotified" : "resolved"] += 1;
      if (rule.destination.disabledAt) continue;
      await enqueueAlert(tx, rule.destination, {
        step,
        rule,
        firing,
        figures,
        consoleUrl: options.consoleUrl,
        now,
      });
    }
    return round;
  });
}

/** The outbox row for one alert message: the webhook envelope, or Slack's `{ text }`. */
async function enqueueAlert(
  tx: Prisma.TransactionClient,
  destination: { id: string; kind: "webhook" | "slack" },
  input: AlertMessageInput & { step: AlertMessageStep; figures: AlertFigures },
) {
  const type = ALERT_MESSAGE_TYPES[input.step];
  const message = webhookMessage(type, alertWebhookData(input));
  const payload = destination.kind === "slack" ? alertSlackMessage(input) : message.payload;
  await tx.notificationOutbox.create({
    data: {
      id: message.id,
      alertDestinationId: destination.id,
      alertFiringId: input.firing.id,
      eventType: type,
      payload,
    },
  });
}
