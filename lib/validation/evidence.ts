import type { z } from "zod";
import { type ListCasesQuery, listCasesSchema } from "./list-cases";

/** A filter's evidence packet: the queue's own filter (no page, order or size: the packet takes the oldest, up to its cap). */
export const evidenceFilterSchema = listCasesSchema.omit({ cursor: true, limit: true, sort: true });
export type EvidenceFilter = z.infer<typeof evidenceFilterSchema>;

/** The filter of a queue view, without its page, order and size. */
export function evidenceFilterOf(query: ListCasesQuery): EvidenceFilter {
  const { cursor: _cursor, limit: _limit, sort: _sort, ...filter } = query;
  return filter;
}

/** The filter as `GET /api/v1/cases/evidence` reads it (the API's names: seconds, micro-units). */
export function evidenceQueryString(filter: EvidenceFilter): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filter)) if (value !== undefined) params.set(key, String(value));
  return params.toString();
}
