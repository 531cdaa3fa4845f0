import type { ProviderName } from "../../lib/providers/types";
import { completedAt, type SimJob } from "./jobs";

/**
 * What each job costs at the simulated provider (decision 076), in the shape of the product's own
 * price table (`provider_prices`: a price per generation or per second of video, in micro-units
 * of a currency). A job's charge is its model's price times the seconds it asked for (5 when
 * unsaid), unless the job carries a charge of its own (`costMicros`, a provider that billed other
 * than the shop reserved). Only a generation that succeeded is charged: the providers refund, or
 * never bill, one that failed or was cancelled.
 */
export type SimPrice = { unit: "per_generation" | "per_second"; priceMicros: number; currency: string };

const perSecond = (priceMicros: number): SimPrice => ({ unit: "per_second", priceMicros, currency: "USD" });
const perVideo = (priceMicros: number): SimPrice => ({ unit: "per_generation", priceMicros, currency: "USD" });

/** Per provider, for a model the table does not name. Runway's is its 5 credits a second at $0.01. */
const PROVIDER_PRICES: Record<ProviderName, SimPrice> = {
  replicate: perSecond(100_000),
  fal: perSecond(70_000),
  runway: perSecond(50_000),
  luma: perSecond(100_000),
  veo: perSecond(400_000),
};

/** Per model: near the providers' list prices in 2026, not quoted from them. */
export const SIM_PRICE_TABLE: ReadonlyArray<{ provider: ProviderName; model: string } & SimPrice> = [
  { provider: "replicate", model: "minimax/video-01", ...perVideo(500_000) },
  { provider: "replicate", model: "kwaivgi/kling-v2.1", ...perSecond(50_000) },
  { provider: "fal", model: "fal-ai/kling-video/v2.5-turbo/pro", ...perSecond(70_000) },
  { provider: "fal", model: "fal-ai/minimax/video-01-live", ...perVideo(500_000) },
  { provider: "runway", model: "gen4_turbo", ...perSecond(50_000) },
  { provider: "runway", model: "gen3a_turbo", ...perSecond(50_000) },
  { provider: "luma", model: "ray-2", ...perSecond(100_000) },
  { provider: "veo", model: "veo-3.1-generate-preview", ...perSecond(400_000) },
];

const priceKey = (provider: string, model: string) => `${provider}\u0000${model}`;

/** The table a simulator starts with; `POST /__admin/prices` replaces rows of it. */
export function defaultPrices(): Map<string, SimPrice> {
  return new Map(SIM_PRICE_TABLE.map(({ provider, model, ...price }) => [priceKey(provider, model), price]));
}

export function setPrice(prices: Map<string, SimPrice>, provider: string, model: string, price: SimPrice): void {
  prices.set(priceKey(provider, model), price);
}

export function priceOf(prices: ReadonlyMap<string, SimPrice>, job: SimJob): SimPrice {
  return prices.get(priceKey(job.provider, job.model)) ?? PROVIDER_PRICES[job.provider];
}

/** The seconds of video a job asked for: `seconds` or `duration` in its input, 5 when unsaid. */
export function billedSeconds(job: SimJob): number {
  const input = (job.input ?? {}) as { seconds?: unknown; duration?: unknown };
  const asked = typeof input.seconds === "number" ? input.seconds : input.duration;
  return typeof asked === "number" && Number.isFinite(asked) && asked > 0 ? asked : 5;
}

/** What the job is charged once it ends, in micro-units of `priceOf(job).currency`. */
export function costOf(prices: ReadonlyMap<string, SimPrice>, job: SimJob): number {
  if (job.outcome !== "succeeded") return 0;
  return job.costMicros ?? estimateOf(prices, job);
}

/** The list price before the job ran (Runway's `estimatedCost`): the table's figure, whatever the outcome. */
export function estimateOf(prices: ReadonlyMap<string, SimPrice>, job: SimJob): number {
  const price = priceOf(prices, job);
  return price.unit === "per_second" ? Math.round(price.priceMicros * billedSeconds(job)) : price.priceMicros;
}

/** Jobs the account is billed for as of `now`: created through the API, finished, charged more than 0. */
export function billedJobs(
  jobs: Iterable<SimJob>,
  prices: ReadonlyMap<string, SimPrice>,
  provider: ProviderName,
  now: number,
): SimJob[] {
  return [...jobs]
    .filter((job) => job.provider === provider && job.createdByApi && job.outcome !== "stuck")
    .filter((job) => completedAt(job) <= now && costOf(prices, job) > 0)
    .sort((a, b) => completedAt(a) - completedAt(b) || a.id.localeCompare(b.id));
}
