import { fail, ok, type Result } from "./errors";

/**
 * Every decision must say why. Whitespace-only text is treated as missing so that a form
 * submitted with a blank box cannot pass as a recorded reason.
 */
export function normaliseEvidence(value: unknown, field = "evidence"): Result<string> {
  if (typeof value !== "string") {
    return fail("evidence_required", `${field} must be text`, { field });
  }
  const trimmed = value.trim();
  if (trimmed.length === 0) {
    return fail("evidence_required", `${field} must not be empty`, { field });
  }
  return ok(trimmed);
}

export function isNonBlankText(value: unknown): value is string {
  return typeof value === "string" && value.trim().length > 0;
}
