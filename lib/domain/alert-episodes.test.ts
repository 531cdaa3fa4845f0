import { describe, expect, it } from "vitest";
import { nextAlertStep } from "./alert-episodes";
import { alertSlackMessage } from "./alert-messages";
import { conditionHolds } from "./alert-rules";

const now = new Date("2026-12-04T12:00:00Z");
const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);

describe("alert episodes", () => {
  it("fires once when the condition starts to hold, then stays quiet within the interval", () => {
    expect(nextAlertStep({ holds: true, open: null, renotifyMinutes: 30, now })).toBe("fire");
    const open = { startedAt: minutesAgo(10), lastNotifiedAt: minutesAgo(10) };
    expect(nextAlertStep({ holds: true, open, renotifyMinutes: 30, now })).toBe("hold");
  });
  it("re-notifies once the interval has passed since the last message", () => {
    const open = { startedAt: minutesAgo(90), lastNotifiedAt: minutesAgo(30) };
    expect(nextAlertStep({ holds: true, open, renotifyMinutes: 30, now })).toBe("renotify");
  });
  it("resolves when the condition clears, and does nothing when nothing is open", () => {
    const open = { startedAt: minutesAgo(5), lastNotifiedAt: minutesAgo(5) };
    expect(nextAlertStep({ holds: false, open, renotifyMinutes: 30, now })).toBe("resolve");
    expect(nextAlertStep({ holds: false, open: null, renotifyMinutes: 30, now })).toBe("quiet");
  });
});

describe("alert conditions", () => {
  const base = { thresholdCount: 3, thresholdMicros: null, thresholdCurrency: null, windowMinutes: 10 };
  it("counts against the threshold", () => {
    const rule = { ...base, kind: "escalated_overdue" as const };
    expect(conditionHolds(rule, { count: 2, held: [] }, now)).toBe(false);
    expect(conditionHolds(rule, { count: 3, held: [] }, now)).toBe(true);
  });
  it("lets money hold the condition on its own, in the rule's currency only", () => {
    const rule = {
      ...base,
      kind: "resolved_money_held" as const,
      thresholdMicros: 5_000_000,
      thresholdCurrency: "USD",
    };
    expect(conditionHolds(rule, { count: 1, held: [{ currency: "EUR", micros: 9_000_000 }] }, now)).toBe(false);
    expect(conditionHolds(rule, { count: 1, held: [{ currency: "USD", micros: 5_000_000 }] }, now)).toBe(true);
  });
  it("judges a provider's error rate only from enough checks, as a percentage", () => {
    const rule = { ...base, kind: "provider_error_rate" as const, thresholdCount: 50 };
    const figures = (checks: number, errors: number) => ({
      count: errors,
      held: [],
      providers: [{ provider: "fal", checks, errors }],
    });
    expect(conditionHolds(rule, figures(4, 4), now)).toBe(false);
    expect(conditionHolds(rule, figures(10, 4), now)).toBe(false);
    expect(conditionHolds(rule, figures(10, 5), now)).toBe(true);
  });
  it("treats a worker as silent after the window, or when none ever ticked", () => {
    const rule = { ...base, kind: "worker_silence" as const };
    expect(conditionHolds(rule, { count: 0, held: [], lastTickAt: minutesAgo(9).toISOString() }, now)).toBe(false);
    expect(conditionHolds(rule, { count: 0, held: [], lastTickAt: minutesAgo(10).toISOString() }, now)).toBe(true);
    expect(conditionHolds(rule, { count: 0, held: [], lastTickAt: null }, now)).toBe(true);
  });
});

describe("slack message", () => {
  it("is one line of escaped text with a link to the filtered queue", () => {
    const message = alertSlackMessage({
      step: "fire",
      rule: { id: "r", name: "Overdue <ops>", kind: "escalated_overdue" },
      firing: { id: "f", startedAt: now, resolvedAt: null },
      figures: { count: 2, held: [] },
      consoleUrl: "https://console.example.com",
      now,
    });
    expect(message.text).toBe(
      ":rotating_light: Alert firing: *Overdue &lt;ops&gt;* (Cases escalated past their deadline). " +
        "2 open cases past their deadline. <https://console.example.com/queue?flag=escalated|Open in the console>",
    );
  });
});
