import type { z } from "zod";
import { AppError } from "@/lib/errors";
import { isCeilingIssue } from "./money-amount";
import { zodIssues } from "./zod-issues";

/**
 * The one place input is parsed: adapters (route handlers, server actions) call it, and services
 * take what it returns (decision 044). A refusal names each field, as every form shows it.
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  message = "Check the highlighted fields.",
): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const issues = zodIssues(parsed.error);
    // An amount above the money ceiling has its own code, so a producer can tell it from a typo (decision 051).
    if (parsed.error.issues.some(isCeilingIssue)) {
      throw new AppError("amount_above_ceiling", "An amount is above the money ceiling.", { issues });
    }
    throw new AppError("invalid_request", message, { issues });
  }
  return parsed.data;
}
