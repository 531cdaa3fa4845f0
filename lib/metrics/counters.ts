import { processShared } from "@/lib/process-shared";

/**
 * Counters for events that leave no row behind (a lost claim writes nothing, by design), kept per
 * process like any Prometheus client's; everything else is read from the database on scrape.
 */
type Labels = Record<string, string>;
const values = processShared(
  "metric-counters",
  () => new Map<string, { name: string; labels: Labels; value: number }>(),
);

export const COUNTER_HELP: Record<string, string> = {
  recovery_case_conflicts_total: "Changes to a case that lost a race to a concurrent change (retried or reported)",
  recovery_lost_claims_total: "Worker steps that found their claim lost (expired, rescued or taken over)",
  recovery_provider_errors_total: "Status checks that ended without an answer about the job, by kind",
  recovery_notification_failures_total: "Webhook sends that did not get a 2xx",
  recovery_poison_actions_total: "Actions parked after too many claims ended without finishing, by kind",
  recovery_storage_refusals_total: "Deliveries ended at once because storage refused the write for good, by kind",
};

export function increment(name: keyof typeof COUNTER_HELP | string, labels: Labels = {}, by = 1): void {
  const key = `${name}${JSON.stringify(labels)}`;
  const current = values.get(key) ?? { name, labels, value: 0 };
  current.value += by;
  values.set(key, current);
}

export function counterSamples() {
  return [...values.values()];
}
