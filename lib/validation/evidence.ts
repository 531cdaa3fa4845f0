import type { z } from "zod";
import { listCasesSchema } from "./list-cases";

/** A filter's evidence packet: the queue's own filter (no page, order or size: the packet takes the oldest, up to its cap). */
export const evidenceFilterSchema = listCasesSchema.omit({ cursor: true, limit: true, sort: true });
export type EvidenceFilter = z.infer<typeof evidenceFilterSchema>;
