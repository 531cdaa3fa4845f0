import { z } from "zod";

/**
 * The overview's and finance's `producer` URL parameter, as the queue's: one producer's figures,
 * or every producer's when absent. Services take a list (decision 034) and narrow it to the
 * producers the reader may see (decision 035).
 */
export const producerParam = z.string().trim().min(1).max(300).optional();

export const overviewQuerySchema = z.strictObject({ producer: producerParam });

/** The services' producer filter for one optional producer: null means every producer. */
export function producersOf(producer: string | undefined): string[] | null {
  return producer ? [producer] : null;
}

/** A console page's `producer` from its search params; a malformed one is ignored, as the queue's. */
export function pageProducer(params: Record<string, string | string[] | undefined>): string | undefined {
  const parsed = producerParam.safeParse(params.producer);
  return parsed.success ? parsed.data : undefined;
}
