import type { z } from "zod";
import type { ErrorIssue } from "@/lib/errors";

/** A schema's complaints as the error body lists them, capped so one bad payload cannot bloat the reply. */
export function zodIssues(error: z.ZodError): ErrorIssue[] {
  return error.issues.slice(0, 50).map((issue) => ({
    path: issue.path.map(String).join(".") || "(body)",
    message: issue.message,
  }));
}
