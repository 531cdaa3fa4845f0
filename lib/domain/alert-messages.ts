import type { AlertMessageStep } from "./alert-episodes";
import { ALERT_KINDS, type AlertFigures, type AlertRuleKind } from "./alert-rules";
import { formatMicros } from "./money";

export type AlertMessageInput = {
  step: AlertMessageStep;
  rule: { id: string; name: string; kind: AlertRuleKind };
  firing: { id: string; startedAt: Date; resolvedAt: Date | null };
  figures: AlertFigures;
  /** The console's base URL; the link goes to the filtered queue (or the page) the alert is about. */
  consoleUrl: string;
  now: Date;
};

/** The console page that shows what the rule is about, as an absolute URL. */
export function alertLink(kind: AlertRuleKind, consoleUrl: string): string {
  return new URL(ALERT_KINDS[kind].link, consoleUrl).toString();
}

/** The figures in words: "3 open cases past their deadline; held $12.00". */
export function describeFigures(kind: AlertRuleKind, figures: AlertFigures, now: Date): string {
  if (kind === "worker_silence") {
    if (!figures.lastTickAt) return "no worker has ever ticked";
    const minutes = Math.floor((now.getTime() - new Date(figures.lastTickAt).getTime()) / 60_000);
    return `no worker has ticked for ${minutes} min (last tick ${figures.lastTickAt})`;
  }
  if (kind === "provider_error_rate") {
    const rates = (figures.providers ?? []).map(
      (p) =>
        `${p.provider}: ${p.errors} of ${p.checks} status checks got no answer (${Math.round((p.errors * 100) / Math.max(1, p.checks))}%)`,
    );
    return rates.length ? rates.join("; ") : "no status checks in the window";
  }
  if (kind === "provider_paused") {
    const n = figures.count;
    return `${n} ${n === 1 ? "pause" : "pauses"} by the unknown-outcome breaker (of a provider, or of one producer at it): new send permits are refused`;
  }
  const money = figures.held.filter((m) => BigInt(m.micros) > 0n).map((m) => formatMicros(m.micros, m.currency));
  const moneyIs = ALERT_KINDS[kind].moneyIs ?? "held";
  return `${figures.count} ${ALERT_KINDS[kind].counts}${money.length ? `; ${moneyIs} ${money.join(", ")}` : ""}`;
}

/** The `data` of a Standard Webhooks message: everything a receiver needs to act or to deduplicate. */
export function alertWebhookData(input: AlertMessageInput) {
  return {
    ruleId: input.rule.id,
    ruleName: input.rule.name,
    kind: input.rule.kind,
    firingId: input.firing.id,
    status: input.step === "resolve" ? "resolved" : "firing",
    startedAt: input.firing.startedAt.toISOString(),
    resolvedAt: input.firing.resolvedAt?.toISOString() ?? null,
    figures: { ...input.figures },
    summary: describeFigures(input.rule.kind, input.figures, input.now),
    link: alertLink(input.rule.kind, input.consoleUrl),
  };
}

const HEADLINES: Record<AlertMessageStep, string> = {
  fire: ":rotating_light: Alert firing",
  renotify: ":warning: Still firing",
  resolve: ":white_check_mark: Resolved",
};

/** Slack's `<`, `>` and `&` are control characters in message text; the rest is plain. */
const slackEscape = (text: string) => text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

/** A Slack-compatible incoming-webhook message: one line of text with a link to the filtered queue. */
export function alertSlackMessage(input: AlertMessageInput): { text: string } {
  const link = alertLink(input.rule.kind, input.consoleUrl);
  const label = ALERT_KINDS[input.rule.kind].label;
  return {
    text:
      `${HEADLINES[input.step]}: *${slackEscape(input.rule.name)}* (${label}). ` +
      `${slackEscape(describeFigures(input.rule.kind, input.figures, input.now))}. <${link}|Open in the console>`,
  };
}
