import { z } from "zod";
import { CASE_STATES, STAGES } from "@/lib/domain/stages";

const optionalText = z.string().trim().min(1).max(300).optional();

export const listCasesSchema = z.strictObject({
  stage: z.enum(STAGES).optional(),
  state: z.enum(CASE_STATES).optional(),
  provider: optionalText,
  model: optionalText,
  assigneeId: z.uuid().optional(),
  minAgeSeconds: z.coerce
    .number()
    .int()
    .min(0)
    .max(10 * 365 * 24 * 3600)
    .optional(),
  minAmountMicros: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  q: optionalText,
  /** Rule 13's flags: open cases past their deadline, or resolved cases that still hold money. */
  flag: z.enum(["escalated", "hold_open"]).optional(),
  sort: z.enum(["age", "amount"]).default("age"),
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type ListCasesQuery = z.infer<typeof listCasesSchema>;
