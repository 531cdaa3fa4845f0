import type { Db } from "@/lib/db/client";
import { priceMetrics, type UsageLineFacts } from "@/lib/domain/usage";
import type { ProviderAdapter } from "@/lib/providers/types";

export type CostCandidate = { provider_job_id: string; model: string; at: Date };

/**
 * Replicate states no charge, only what a prediction measured (decision 076): each finished,
 * succeeded prediction is priced from the product's own price table for its model (Admin →
 * prices), per second of video where the prediction says its video's seconds, else per second it
 * ran, or per generation. A model without a price, or a failed prediction, is left for the
 * provider's invoice file.
 */
export async function pricedMetrics(
  db: Db,
  adapter: ProviderAdapter,
  candidates: CostCandidate[],
): Promise<UsageLineFacts[]> {
  const facts: UsageLineFacts[] = [];
  const prices = await db.providerPrice.findMany({
    where: { provider: adapter.provider, model: { in: [...new Set(candidates.map((job) => job.model))] } },
  });
  for (const [i, job] of candidates.entries()) {
    const price = prices.find((row) => row.model === job.model);
    if (!price || !adapter.jobMetrics) continue;
    const metrics = await adapter.jobMetrics({ providerJobId: job.provider_job_id, model: job.model });
    if (metrics.kind !== "ok" || !metrics.succeeded) continue;
    const amountMicros = priceMetrics({ unit: price.unit, priceMicros: Number(price.priceMicros) }, metrics);
    if (amountMicros === null) continue;
    facts.push({
      providerJobId: job.provider_job_id,
      providerAccount: null,
      model: job.model,
      usageAt: job.at,
      amountMicros,
      currency: price.currency,
      lineNumber: i + 1,
    });
  }
  return facts;
}
