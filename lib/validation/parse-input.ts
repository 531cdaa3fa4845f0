import type { z } from "zod";
import { AppError } from "@/lib/errors";
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
  if (!parsed.success) throw new AppError("invalid_request", message, { issues: zodIssues(parsed.error) });
  return parsed.data;
}
