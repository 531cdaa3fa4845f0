import { createHash } from "node:crypto";
import { sanitise } from "./sanitise";

/** What stands in for a prompt: enough to tell whether two requests asked for the same text. */
export type PromptDigest = { sha256: string; length: number };

// Compared after lower-casing and dropping "-" and "_": "prompt", "negative_prompt", "systemPrompt",
// "prompts". Names that only mention a prompt ("prompt_id", "prompt_strength") are not prompt text.
const PROMPT_KEY = /prompts?$/;

export function isPromptKey(key: string): boolean {
  return PROMPT_KEY.test(key.toLowerCase().replace(/[-_]/g, ""));
}

/** SHA-256 of the UTF-8 text; the length counts characters (Unicode code points). */
export function digestPrompt(text: string): PromptDigest {
  return { sha256: createHash("sha256").update(text, "utf8").digest("hex"), length: [...text].length };
}

/**
 * The request summary as stored: prompts become digests unless the operator chose to keep them
 * (DESIGN section 2: evidence never holds full prompts by default), then the usual sanitising.
 * Digests are taken of the full text, before any truncation, so they identify the real prompt.
 */
export function summariseRequest(request: unknown, options: { storePrompts: boolean }): unknown {
  return sanitise(options.storePrompts ? request : digestPrompts(request, false, 0));
}

// Bounded like the sanitiser, so a hostile summary costs no more here than there.
const MAX_DEPTH = 16;

function digestPrompts(value: unknown, inPrompt: boolean, depth: number): unknown {
  if (typeof value === "string") return inPrompt ? digestPrompt(value) : value;
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) return inPrompt ? "[truncated: too deep]" : value;
  if (Array.isArray(value)) return value.map((item) => digestPrompts(item, inPrompt, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    out[key] = digestPrompts(inner, inPrompt || isPromptKey(key), depth + 1);
  }
  return out;
}
