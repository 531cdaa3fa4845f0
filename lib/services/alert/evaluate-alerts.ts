import type { Db, Prisma } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { ALERT_MESSAGE_TYPES, type AlertMessageStep, type AlertStep, nextAlertStep } from "@/lib/domain/alert-episodes";
import { type AlertMessageInput, alertSlackMessage, alertWebhookData } from "@/lib/domain/alert-messages";
import { type AlertFigures, type AlertRuleKind, conditionHolds } from "@/lib/domain/alert-rules";
import { webhookMessage } from "../notification/enqueue-notification";
import { roundFigures } from "./alert-figures";
import { claimAlertRound } from "./alert-schedule";

export type AlertRound = {
  evaluated: number;
  fired: number;
  renotified: number;
  resolved: number;
  /** Rules whose evaluation failed this round, each on its own: the others were judged all the same. */
  failed: { ruleId: string; error: string }[];
} | null;

type RuleRow = {
  id: string;
  kind: AlertRuleKind;
  thresholdCount: number;
  thresholdMicros: bigint | null;
  thresholdCurrency: string | null;
  windowMinutes: number;
  renotifyMinutes: number;
  updatedAt: Date;
  firings: { id: string; startedAt: Date; lastNotifiedAt: Date }[];
};

/**
 * One round over every enabled rule whose destination is enabled (a rule that can tell nobody is
 * judged no more, like a disabled one), if the round is due: null when it is not, or another
 * process took it (alert-schedule.ts). Each rule's figures are read through the round's cache and
 * the pure step decides; only a step that writes opens a transaction, the rule's own and short,
 * where the firing and its message are written together (a message exists exactly when its episode
 * changed), so one rule that fails costs only itself. The rule's row lock, and the unique index on
 * open firings behind it, keep two rounds (one made due while another runs) from opening two
 * episodes. The dispatcher sends the messages from the outbox later.
 */
export async function evaluateAlerts(
  db: Db,
  options: { consoleUrl: string; now?: Date; overdueMs?: number },
): Promise<AlertRound> {
  const now = await claimAlertRound(db, options);
  if (!now) return null;
  const rules = await db.alertRule.findMany({
    where: { enabled: true, destination: { disabledAt: null } },
    include: { firings: { where: { resolvedAt: null } } },
    orderBy: { createdAt: "asc" },
  });
  const figuresOf = roundFigures(db, now);
  const round = {
    evaluated: 0,
    fired: 0,
    renotified: 0,
    resolved: 0,
    failed: [] as { ruleId: string; error: string }[],
  };
  for (const rule of rules) {
    try {
      const figures = await figuresOf(rule);
      const judged = stepOf(rule, figures, now);
      const step = writes(judged)
        ? await writeStep(db, rule, figures, { now, consoleUrl: options.consoleUrl })
        : judged;
      if (step === null) continue;
      round.evaluated += 1;
      if (step === "fire") round.fired += 1;
      if (step === "renotify") round.renotified += 1;
      if (step === "resolve") round.resolved += 1;
    } catch (error) {
      round.failed.push({ ruleId: rule.id, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return round;
}

const writes = (step: AlertStep): step is AlertMessageStep => step !== "quiet" && step !== "hold";

function stepOf(rule: RuleRow, figures: AlertFigures, now: Date): AlertStep {
  const settings = { ...rule, thresholdMicros: rule.thresholdMicros === null ? null : Number(rule.thresholdMicros) };
  return nextAlertStep({
    holds: conditionHolds(settings, figures, now),
    open: rule.firings[0] ?? null,
    renotifyMinutes: rule.renotifyMinutes,
    now,
  });
}

/**
 * A step that writes, in the rule's own transaction: the rule row is locked (a save, or another
 * round judging the same rule, waits) and read again, and the step decided again on the current
 * open episode. A rule changed, disabled or left without a destination since the round listed it
 * is skipped (null): the next round judges its new settings.
 */
async function writeStep(
  db: Db,
  listed: RuleRow,
  figures: AlertFigures,
  round: { now: Date; consoleUrl: string },
): Promise<AlertStep | null> {
  const { now } = round;
  return inTransaction(db, async (tx) => {
    await tx.$queryRaw`SELECT 1 FROM alert_rules WHERE id = ${listed.id}::uuid FOR UPDATE`;
    const rule = await tx.alertRule.findUnique({
      where: { id: listed.id },
      include: { destination: true, firings: { where: { resolvedAt: null } } },
    });
    if (!rule?.enabled || rule.destination.disabledAt || rule.updatedAt.getTime() !== listed.updatedAt.getTime()) {
      return null;
    }
    const step = stepOf(rule, figures, now);
    if (!writes(step)) return step;
    const open = rule.firings[0] as { id: string };
    const json = figures as unknown as Prisma.InputJsonObject;
    const firing =
      step === "fire"
        ? await tx.alertFiring.create({
            data: { ruleId: rule.id, startedAt: now, lastNotifiedAt: now, figures: json, lastFigures: json },
          })
        : await tx.alertFiring.update({
            where: { id: open.id },
            data:
              step === "resolve"
                ? { resolvedAt: now, lastFigures: json }
                : { lastNotifiedAt: now, notifications: { increment: 1 }, lastFigures: json },
          });
    await enqueueAlert(tx, rule.destination, { step, rule, firing, figures, consoleUrl: round.consoleUrl, now });
    return step;
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
