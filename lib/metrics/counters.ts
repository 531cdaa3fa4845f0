import { Counter } from "prom-client";
import { processShared } from "@/lib/process-shared";
import { metricsRegistry } from "./registry";

/**
 * Counters for events that leave no row behind (a lost claim writes nothing, by design), kept per
 * process like any Prometheus client's; everything else is read from the database on scrape
 * (lib/metrics/figures.ts).
 */
const COUNTERS = {
  recovery_case_conflicts_total: {
    help: "Changes to a case that lost a race to a concurrent change (retried or reported)",
    labelNames: ["command"],
  },
  recovery_lost_claims_total: {
    help: "Worker steps that found their claim lost (expired, rescued or taken over)",
    labelNames: ["kind"],
  },
  recovery_provider_errors_total: {
    help: "Status checks that ended without an answer about the job, by kind",
    labelNames: ["provider", "kind"],
  },
  recovery_notification_failures_total: { help: "Webhook sends that did not get a 2xx", labelNames: ["status"] },
  recovery_poison_actions_total: {
    help: "Actions parked after too many claims ended without finishing, by kind",
    labelNames: ["kind"],
  },
  recovery_permits_overdue_total: {
    help: "Send permits the product parked for a silent producer: no outcome by the deadline, or no completion a day after acceptance",
    labelNames: [],
  },
  recovery_storage_refusals_total: {
    help: "Deliveries ended at once because storage refused the write for good, by kind",
    labelNames: ["kind"],
  },
  recovery_retention_file_errors_total: {
    help: "Videos retention marked deleted whose file storage refused to remove (tried again by the next run)",
    labelNames: [],
  },
  recovery_spend_limit_refusals_total: {
    help: "Replacement authorisations refused because they would pass a spend limit, by currency and window",
    labelNames: ["currency", "window"],
  },
  recovery_permit_refusals_total: {
    help: "Send permits refused before anything was written: a spend limit reached, or the provider's unknown-outcome breaker open",
    labelNames: ["reason", "provider"],
  },
  recovery_provider_breaker_trips_total: {
    help: "Times a provider's unknown-outcome breaker paused the provider, or one producer at it (or kept it paused for another window)",
    labelNames: ["provider", "scope"],
  },
} as const satisfies Record<string, { help: string; labelNames: readonly string[] }>;

export type CounterName = keyof typeof COUNTERS;
type LabelsOf<N extends CounterName> = Partial<Record<(typeof COUNTERS)[N]["labelNames"][number], string>>;

const counters = () =>
  processShared("metric-counters", () => {
    const registers = [metricsRegistry()];
    const entries = Object.entries(COUNTERS).map(([name, { help, labelNames }]) => [
      name,
      new Counter({ name, help, labelNames, registers }),
    ]);
    return Object.fromEntries(entries) as Record<CounterName, Counter>;
  });

export function increment<N extends CounterName>(name: N, labels: LabelsOf<N> = {}, by = 1): void {
  counters()[name].inc(labels as Record<string, string>, by);
}

/** The counters' current samples, as the registry holds them. */
export async function counterSamples(): Promise<{ name: string; labels: Record<string, string>; value: number }[]> {
  const metrics = await Promise.all(Object.values(counters()).map((counter) => counter.get()));
  return metrics.flatMap((metric) =>
    metric.values.map((v) => ({ name: metric.name, labels: v.labels as Record<string, string>, value: v.value })),
  );
}

/** Registers the counters before a scrape, so they are listed even in a process that counted nothing yet. */
export const registerCounters = (): void => void counters();
