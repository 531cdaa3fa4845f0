import { createHash } from "node:crypto";
import { isPromptKey } from "./prompt-key";
import { type SanitiseLimits, sanitise } from "./sanitise";

/** What stands in for a prompt: enough to tell whether two requests asked for the same text. */
export type PromptDigest = { sha256: string; length: number };

export { isPromptKey };

/** SHA-256 of the UTF-8 text; the length counts characters (Unicode code points). */
export function digestPrompt(text: string): PromptDigest {
  return { sha256: createHash("sha256").update(text, "utf8").digest("hex"), length: [...text].length };
}

/** How text entering the product is kept: full prompts only when the operator chose to (STORE_PROMPTS=1). */
export type StoredTextOptions = { storePrompts: boolean; limits?: Partial<SanitiseLimits> };

/**
 * Text entering the product as it is stored, wherever it enters (a request summary, evidence and
 * its details, a note, a permit report): prompts become digests unless the operator chose to keep
 * them (DESIGN rules 10 and 20), then the usual sanitising. A prompt is a value under a prompt key
 * or, in free text, what follows "prompt:" or "prompt=" to the end of the line (or the closing
 * quote). Digests are taken of the full text, before any truncation, so they identify the real
 * prompt: the same text in a note and in the request has the same digest.
 */
export function storedText(value: string, options: StoredTextOptions): string;
export function storedText(value: unknown, options: StoredTextOptions): unknown;
export function storedText(value: unknown, options: StoredTextOptions): unknown {
  return sanitise(options.storePrompts ? value : digestPrompts(value, false, 0), options.limits);
}

// "prompt: a fox", "negative_prompt = 'blur'", "Prompt: \"a fox\"": the name ends in prompt(s),
// as isPromptKey reads names; the value is a quoted string or the rest of the line.
// A quoted value may span lines (a pasted multi-line prompt): all of it is the prompt.
const PROMPT_IN_TEXT = /\b([A-Za-z_-]*prompts?)(["']?[ \t]*[:=][ \t]*)("[^"]*"|'[^']*'|[^\n]+)/gi;

// What a digested prompt reads as in text: taking the digest of a digest again would hide the first.
const DIGEST_IN_TEXT = /^\[prompt sha256:[0-9a-f]{64} length:\d+\]$/;

function digestPromptsInText(text: string): string {
  return text.replace(PROMPT_IN_TEXT, (whole, name: string, separator: string, raw: string) => {
    if (!isPromptKey(name) || DIGEST_IN_TEXT.test(raw.trim())) return whole;
    const quoted = /^(["']).*\1$/s.test(raw);
    const { sha256, length } = digestPrompt(quoted ? raw.slice(1, -1) : raw.trim());
    return `${name}${separator}[prompt sha256:${sha256} length:${length}]`;
  });
}

// Bounded like the sanitiser, so a hostile summary costs no more here than there.
const MAX_DEPTH = 16;

function digestPrompts(value: unknown, inPrompt: boolean, depth: number): unknown {
  if (typeof value === "string") return inPrompt ? digestPrompt(value) : digestPromptsInText(value);
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) return inPrompt ? "[truncated: too deep]" : value;
  if (Array.isArray(value)) return value.map((item) => digestPrompts(item, inPrompt, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    out[key] = digestPrompts(inner, inPrompt || isPromptKey(key), depth + 1);
  }
  return out;
}
