import { z } from "zod";
import { CASE_STATES, STAGES } from "@/lib/domain/stages";
import { currency } from "./common";

export const QUEUE_SORTS = [
  "age",
  "newest",
  "amount",
  "smallest",
  "stage",
  "stage_desc",
  "provider",
  "provider_desc",
  "attempt",
  "attempt_recent",
] as const;
export type QueueSort = (typeof QUEUE_SORTS)[number];

const optionalText = z.string().trim().min(1).max(300).optional();

export const listCasesSchema = z.strictObject({
  stage: z.enum(STAGES).optional(),
  state: z.enum(CASE_STATES).optional(),
  provider: optionalText,
  model: optionalText,
  producer: optionalText,
  assigneeId: z.uuid().optional(),
  minAgeSeconds: z.coerce
    .number()
    .int()
    .min(0)
    .max(10 * 365 * 24 * 3600)
    .optional(),
  minAmountMicros: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  /** Only cases held in this currency (and the amount threshold is then typed in it). */
  currency: currency.optional(),
  /** Part of an operation, attempt or provider job ID (3 characters or more; shorter: a whole ID). */
  q: optionalText,
  /** Words of a case's evidence (its error among it) or of its notes; 3 characters or more (decision 063). */
  text: z.string().trim().min(3, "type 3 or more characters to search text").max(200).optional(),
  /**
   * Rule 13's flags: open cases past their deadline, or resolved cases that still hold money; and
   * cases in any state whose producer's notification was given up (decision 045).
   */
  flag: z.enum(["escalated", "hold_open", "producer_not_told"]).optional(),
  /**
   * age: oldest first; newest: newest first; amount: most money first; smallest: least first;
   * stage: in the pipeline's order (stage_desc: reversed); provider: A to Z (provider_desc: Z to A);
   * attempt: longest since the last attempt first, never attempted first (attempt_recent: reversed).
   */
  sort: z.enum(QUEUE_SORTS).default("age"),
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type ListCasesQuery = z.infer<typeof listCasesSchema>;

/** A queue view as a file: its filters and order, without a page (the file starts at the view's start). */
export const queueExportSchema = listCasesSchema.omit({ cursor: true, limit: true });
export type QueueExportQuery = z.infer<typeof queueExportSchema>;

/** The view as `GET /api/v1/cases/export` reads it (the API's names: seconds, micro-units). */
export function queueExportQueryString(query: ListCasesQuery): string {
  const { cursor: _cursor, limit: _limit, ...view } = query;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(view)) if (value !== undefined) params.set(key, String(value));
  return params.toString();
}
