import type { MicrosTotal } from "./money";
/** The conditions an admin can be alerted about (issue 19), each with what it counts and where to look. */
export const ALERT_RULE_KINDS = [
  "escalated_overdue",
  "resolved_money_held",
  "worker_silence",
  "uncertainty_growth",
  "suspected_duplicates",
  "poison_actions",
  "outputs_expiring",
  "provider_error_rate",
  "provider_paused",
  "producer_not_told",
  "charged_after_release",
  "duplicate_outputs",
  "unexplained_charges",
] as const;
export type AlertRuleKind = (typeof ALERT_RULE_KINDS)[number];

export const ALERT_DESTINATION_KINDS = ["webhook", "slack"] as const;
export type AlertDestinationKind = (typeof ALERT_DESTINATION_KINDS)[number];

type KindInfo = {
  label: string;
  /** What `count` counts, in a sentence's words ("3 cases past their deadline"). */
  counts: string;
  /** Whether a money threshold can make the condition hold on its own. */
  money: boolean;
  /** What its money is, in a message's words (default "held"). */
  moneyIs?: string;
  /** What the window means for this kind, or null when it has none. */
  window: "looks back" | "silence" | null;
  /** Whether the count threshold is a percentage (of a provider's status checks). */
  percent?: boolean;
  /** The console page that shows what the alert is about, filtered. */
  link: string;
};

export const ALERT_KINDS: Record<AlertRuleKind, KindInfo> = {
  escalated_overdue: {
    label: "Cases escalated past their deadline",
    counts: "open cases past their deadline",
    money: false,
    window: null,
    link: "/queue?flag=escalated",
  },
  resolved_money_held: {
    label: "Resolved cases with money still held",
    counts: "resolved cases whose hold is still open",
    money: true,
    window: null,
    link: "/queue?flag=hold_open",
  },
  worker_silence: {
    label: "Worker silence",
    counts: "minutes since any worker ticked",
    money: false,
    window: "silence",
    link: "/admin/worker-tokens",
  },
  uncertainty_growth: {
    label: "Growing uncertainty",
    counts: "uncertain submissions opened in the window",
    money: true,
    window: "looks back",
    link: "/queue?stage=submission_uncertain&sort=newest",
  },
  suspected_duplicates: {
    label: "Suspected duplicates",
    counts: "suspected duplicate charges not withdrawn",
    money: false,
    window: null,
    link: "/finance",
  },
  poison_actions: {
    label: "Poison actions",
    counts: "actions parked after repeated worker failures in the window",
    money: false,
    window: "looks back",
    link: "/queue?state=parked",
  },
  outputs_expiring: {
    label: "Outputs about to expire",
    counts: "open cases whose outputs expire within the hour",
    money: true,
    window: null,
    link: "/overview",
  },
  provider_error_rate: {
    label: "Provider error rate",
    counts: "status checks that got no answer in the window",
    money: false,
    window: "looks back",
    percent: true,
    link: "/queue?state=parked",
  },
  provider_paused: {
    label: "Provider paused",
    counts: "pauses of a provider (or of one producer at it) by the unknown-outcome breaker",
    money: false,
    window: null,
    link: "/admin/providers",
  },
  producer_not_told: {
    label: "Producers not told",
    counts: "cases whose producer's notification was given up (410, or every send failed)",
    money: false,
    window: null,
    link: "/queue?flag=producer_not_told",
  },
  // DESIGN rule 18: the provider charged for a job whose hold finance had released or written off.
  charged_after_release: {
    label: "Charged after release",
    counts: "charges after a hold's release that finance has not decided",
    money: true,
    window: null,
    link: "/finance#charged-after-release",
  },
  // Decision 072: two paid jobs delivered the same bytes; new pairs in the window.
  duplicate_outputs: {
    label: "Same video delivered twice",
    counts: "pairs of paid jobs found in the window to have delivered the same video",
    money: false,
    window: "looks back",
    link: "/finance#duplicate-outputs",
  },
  // Decision 074: provider charges and listed jobs no operation explains, while they stay unexplained.
  unexplained_charges: {
    label: "Charges no operation explains",
    counts: "provider charges or listed jobs that no operation owns and finance has not explained",
    money: true,
    moneyIs: "charged",
    window: null,
    link: "/finance/unexplained",
  },
};

/** Below this many status checks in the window, a provider's error rate says nothing yet. */
export const MIN_CHECKS_FOR_A_RATE = 5;

/** One provider's status checks in the window, and how many of them got no answer. */
export type ProviderChecks = { provider: string; checks: number; errors: number };

/** Money per currency, in integer micro-units: a sum's exact decimal string (decision 051), or a number kept by an older firing. */
export type HeldMoney = { currency: string; micros: number | MicrosTotal };

/** What a rule's condition was judged on, kept with each firing and sent in each message. */
export type AlertFigures = {
  count: number;
  held: HeldMoney[];
  /** Worker silence only: the latest tick of any worker, or null when none ever ticked. */
  lastTickAt?: string | null;
  /** Provider error rate only: the checks per provider. */
  providers?: ProviderChecks[];
};

export type AlertRuleSettings = {
  kind: AlertRuleKind;
  thresholdCount: number;
  thresholdMicros: number | null;
  thresholdCurrency: string | null;
  windowMinutes: number;
};

/** Whether the rule's condition holds for these figures, at `now`. */
export function conditionHolds(rule: AlertRuleSettings, figures: AlertFigures, now: Date): boolean {
  if (rule.kind === "worker_silence") {
    if (!figures.lastTickAt) return true;
    return now.getTime() - new Date(figures.lastTickAt).getTime() >= rule.windowMinutes * 60_000;
  }
  if (rule.kind === "provider_error_rate") {
    return (figures.providers ?? []).some(
      (p) => p.checks >= MIN_CHECKS_FOR_A_RATE && p.errors * 100 >= rule.thresholdCount * p.checks,
    );
  }
  if (figures.count >= rule.thresholdCount) return true;
  if (!ALERT_KINDS[rule.kind].money || rule.thresholdMicros === null) return false;
  const held = figures.held.find((m) => m.currency === rule.thresholdCurrency)?.micros ?? 0;
  return BigInt(held) >= BigInt(rule.thresholdMicros);
}
