import type { ProviderName } from "../../lib/providers/types";
import { billedJobs, billedSeconds, costOf, priceOf, type SimPrice } from "./costs";
import { completedAt, type SimJob } from "./jobs";
import { iso } from "./routes";
import type { SimulatorState } from "./state";

/**
 * Each provider's usage or invoice records for the account, in the shape that provider documents
 * (docs/providers.md, "Usage and cost"; decision 076), one line per billed job:
 * - fal: the Platform API's billing events (`GET /v1/models/billing-events`), JSON, one event per
 *   request with its `request_id` and `cost_estimate_nano_usd`;
 * - Veo: Google Cloud Billing's detailed (resource-level) export as CSV, with the operation's name
 *   in `resource.name` (that Google names the operation there is not documented: an assumption);
 * - Replicate, Runway and Luma document no per-job export (Runway's organization usage is per day
 *   and model): the one-line-per-job CSV the product reads (`generic`), as a shop's own books or a
 *   provider's account manager would send it.
 */
export type UsageExport = {
  format: "generic" | "gcp_billing" | "fal_billing_events";
  fileName: string;
  contentType: string;
  content: string;
};

/** Micro-units as a plain decimal with six places ("0.350000"). */
export const decimal = (micros: number) =>
  `${micros < 0 ? "-" : ""}${Math.floor(Math.abs(micros) / 1e6)}.${String(Math.abs(micros) % 1e6).padStart(6, "0")}`;

const csvCell = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);
const csv = (rows: string[][]) => `${rows.map((row) => row.map(csvCell).join(",")).join("\n")}\n`;

/** A fixed billing account and project, as one provider account has. */
export const SIM_BILLING_ACCOUNT = "01SIM0-5IM0AC-C0UNT0";
const SIM_PROJECT = "sim-video-shop";

export function usageExport(
  state: SimulatorState,
  provider: ProviderName,
  jobIdOf: (job: SimJob) => string,
): UsageExport {
  const jobs = billedJobs(state.jobs.values(), state.prices, provider, state.clock.now());
  const day = iso(state.clock.now()).slice(0, 10);
  if (provider === "fal") {
    const page = { billing_events: jobs.map((job) => billingEvent(state, job)), next_cursor: null, has_more: false };
    return {
      format: "fal_billing_events",
      fileName: `fal-billing-events-${day}.json`,
      contentType: "application/json",
      content: JSON.stringify(page),
    };
  }
  if (provider === "veo") {
    const header = [
      "billing_account_id",
      "service.description",
      "sku.description",
      "usage_start_time",
      "usage_end_time",
      "project.id",
      "resource.name",
      "cost",
      "currency",
      "usage.amount",
      "usage.unit",
    ];
    const rows = jobs.map((job) => [
      SIM_BILLING_ACCOUNT,
      "Vertex AI",
      `Veo video generation (${job.model})`,
      iso(job.createdAt),
      iso(completedAt(job)),
      SIM_PROJECT,
      jobIdOf(job),
      decimal(costOf(state.prices, job)),
      priceOf(state.prices, job).currency,
      String(billedSeconds(job)),
      "seconds",
    ]);
    return {
      format: "gcp_billing",
      fileName: `gcp-billing-${day}.csv`,
      contentType: "text/csv",
      content: csv([header, ...rows]),
    };
  }
  const header = ["provider_job_id", "model", "amount", "currency", "time", "provider_account"];
  const rows = jobs.map((job) => [
    jobIdOf(job),
    job.model,
    decimal(costOf(state.prices, job)),
    priceOf(state.prices, job).currency,
    iso(completedAt(job)),
    SIM_PROJECT,
  ]);
  return {
    format: "generic",
    fileName: `${provider}-usage-${day}.csv`,
    contentType: "text/csv",
    content: csv([header, ...rows]),
  };
}

/** One of fal's billing events: units billed, the unit's price in dollars, and the cost in nano-dollars. */
export function billingEvent(state: SimulatorState, job: SimJob) {
  const price: SimPrice = priceOf(state.prices, job);
  const cost = costOf(state.prices, job);
  const units = price.unit === "per_second" ? billedSeconds(job) : 1;
  return {
    request_id: job.id,
    endpoint_id: job.model,
    timestamp: iso(completedAt(job)),
    output_units: units,
    unit_price: cost / units / 1e6,
    percent_discount: null,
    cost_estimate_nano_usd: cost * 1000,
  };
}
