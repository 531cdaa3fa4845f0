import { Counter, Gauge, Histogram } from "prom-client";
import { processShared } from "@/lib/process-shared";
import { registerCounters } from "./counters";
import { metricsRegistry } from "./registry";

/**
 * The operator's figures (DESIGN section 10), read from the database at scrape time
 * (lib/services/overview/metrics-snapshot.ts) and set on the process's registry just before it renders.
 * Names, label names and types are what the dashboards query: change none of them.
 */
const FIGURES = {
  recovery_open_cases: { type: "gauge", help: "Open cases by stage", labelNames: ["stage"] },
  recovery_oldest_case_age_seconds: {
    type: "gauge",
    help: "Age of the oldest open case by stage",
    labelNames: ["stage"],
  },
  recovery_money_on_hold_micros: {
    type: "gauge",
    help: "Money on hold in micro-units, by currency and stage",
    labelNames: ["currency", "stage"],
  },
  recovery_unresolved_uncertain_submissions: { type: "gauge", help: "Open submission_uncertain cases", labelNames: [] },
  recovery_claims_recorded_total: { type: "counter", help: "Claims recorded in the audit log", labelNames: [] },
  recovery_lease_rescues_total: { type: "counter", help: "Expired leases handed back", labelNames: [] },
  recovery_delivery_failures_total: {
    type: "counter",
    help: "Delivery attempts that ended unresolved",
    labelNames: [],
  },
  recovery_provider_observations_without_answer_total: {
    type: "counter",
    help: "Status checks recorded as unknown or not_found",
    labelNames: ["kind"],
  },
  recovery_notifications_failing: { type: "gauge", help: "Outbox messages whose last send failed", labelNames: [] },
  recovery_notifications_pending: { type: "gauge", help: "Outbox messages not yet delivered", labelNames: [] },
  recovery_resolved_hold_open_cases: {
    type: "gauge",
    help: "Resolved cases whose hold is still open (needs a finance decision), by currency",
    labelNames: ["currency"],
  },
  recovery_resolved_hold_open_micros: {
    type: "gauge",
    help: "Money still held on resolved cases in micro-units, by currency",
    labelNames: ["currency"],
  },
  recovery_escalated_open_cases: {
    type: "gauge",
    help: "Open cases escalated because their deadline passed",
    labelNames: [],
  },
  recovery_producer_not_told_cases: {
    type: "gauge",
    help: "Cases whose producer's notification was given up (410, or every send failed) and not resent since",
    labelNames: [],
  },
  recovery_deadline_escalations_total: {
    type: "counter",
    help: "Cases escalated by the deadline sweep",
    labelNames: [],
  },
  recovery_suspected_duplicates_total: {
    type: "counter",
    help: "Authorised replacements whose original job turned up afterwards, by whether it was withdrawn",
    labelNames: ["withdrawn"],
  },
  recovery_duplicate_outputs_total: {
    type: "counter",
    help: "Pairs of paid jobs that delivered the same bytes (same SHA-256), flagged as suspected paid duplicates",
    labelNames: [],
  },
  recovery_vault_copies_total: {
    type: "counter",
    help: "Outputs the product copied into its own storage because no case would (the output vault, decision 075), by provider",
    labelNames: ["provider"],
  },
  recovery_vault_missed_total: {
    type: "counter",
    help: "Outputs the output vault could not keep, by provider and reason (expired, too_large, vault_full, gone, no_provider, refused)",
    labelNames: ["provider", "reason"],
  },
  recovery_vault_bytes: { type: "gauge", help: "Bytes the output vault holds now", labelNames: [] },
  recovery_unexplained_charges: {
    type: "gauge",
    help: "Provider charges and listed jobs that no operation owns and finance has not explained (decision 074), by provider",
    labelNames: ["provider"],
  },
  recovery_unexplained_charges_micros: {
    type: "gauge",
    help: "Money of the unexplained charges in micro-units (from their usage lines), by provider and currency",
    labelNames: ["provider", "currency"],
  },
  recovery_provider_paused: {
    type: "gauge",
    help: "1 while a provider's unknown-outcome breaker refuses new send permits (producer \"\"), or one producer's at it; 0 while closed",
    labelNames: ["provider", "producer"],
  },
  recovery_charged_after_release_open: {
    type: "gauge",
    help: "Charges the provider proved after a hold's release that finance has not decided, by currency (DESIGN rule 18)",
    labelNames: ["currency"],
  },
  recovery_charged_after_release_open_micros: {
    type: "gauge",
    help: "Money charged after a hold's release that finance has not decided, in micro-units, by currency",
    labelNames: ["currency"],
  },
} as const satisfies Record<string, { type: "gauge" | "counter"; help: string; labelNames: readonly string[] }>;

export type FigureName = keyof typeof FIGURES;
export type Sample = { labels?: Record<string, string>; value: number };
/** One figure's samples as read from the database, label values in the order of its label names. */
export type Family = { name: FigureName; samples: Sample[] };

/** Upper bounds of the review-latency buckets, in seconds: a minute to three days. */
export const REVIEW_LATENCY_BUCKETS = [60, 300, 900, 3600, 4 * 3600, 24 * 3600, 3 * 24 * 3600];

const figureMetrics = () =>
  processShared("metric-figures", () => {
    const registers = [metricsRegistry()];
    const figures = Object.fromEntries(
      Object.entries(FIGURES).map(([name, { type, help, labelNames }]) => {
        const config = { name, help, labelNames, registers };
        return [name, type === "gauge" ? new Gauge(config) : new Counter(config)];
      }),
    ) as Record<FigureName, Gauge | Counter>;
    const reviewLatency = new Histogram({
      name: "recovery_review_latency_seconds",
      help: "Time from a case opening to its first decision",
      buckets: REVIEW_LATENCY_BUCKETS,
      registers,
    });
    return { figures, reviewLatency };
  });

/**
 * Sets the figures read from the database and renders the whole registry, counters included.
 * Setting and rendering happen in one turn of the event loop: prom-client takes each metric's
 * values when metrics() is called, so a concurrent scrape cannot set its figures in between.
 */
export function renderFigures(families: Family[], reviewLatencySeconds: number[]): Promise<string> {
  const { figures, reviewLatency } = figureMetrics();
  for (const metric of Object.values(figures)) metric.reset();
  for (const family of families) {
    const metric = figures[family.name];
    for (const { labels = {}, value } of family.samples) {
      // A counter here is a count of rows, set whole: reset above, then one increment by the count.
      if (FIGURES[family.name].type === "gauge") (metric as Gauge).set(labels, value);
      else metric.inc(labels, value);
    }
  }
  reviewLatency.reset();
  reviewLatency.zero({});
  for (const seconds of reviewLatencySeconds) reviewLatency.observe(seconds);
  registerCounters();
  return metricsRegistry().metrics();
}

/** Prometheus text format 0.0.4, as prom-client writes it. */
export const metricsContentType = (): string => metricsRegistry().contentType;
