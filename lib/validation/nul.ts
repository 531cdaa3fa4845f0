export const MAX_JSON_DEPTH = 32;

/**
 * Walks a parsed JSON value without recursion (a hostile body may nest thousands deep) and reports
 * what the database or the schemas cannot take: text PostgreSQL cannot hold (U+0000, and lone UTF-16
 * surrogates, which jsonb rejects and text stores only as mangled bytes), and nesting deeper than any
 * legitimate request needs. Refused here, such text is a 400 instead of a 500 a producer would retry.
 */
export function inspectJson(value: unknown): { unstorable: boolean; tooDeep: boolean } {
  // The whole value is walked even after unstorable text is found, so depth is always known.
  let unstorable = false;
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const item = stack.pop();
    if (!item) break;
    if (item.depth > MAX_JSON_DEPTH) return { unstorable, tooDeep: true };
    const current = item.value;
    if (typeof current === "string") {
      unstorable ||= isUnstorableText(current);
    } else if (Array.isArray(current)) {
      for (const inner of current) stack.push({ value: inner, depth: item.depth + 1 });
    } else if (current && typeof current === "object") {
      for (const [key, inner] of Object.entries(current)) {
        unstorable ||= isUnstorableText(key);
        stack.push({ value: inner, depth: item.depth + 1 });
      }
    }
  }
  return { unstorable, tooDeep: false };
}

// With the `u` flag a well-formed pair is one code point, so only a lone half matches.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

export function isUnstorableText(text: string): boolean {
  return text.includes("\u0000") || LONE_SURROGATE.test(text);
}

/** A copy of parsed JSON with every NUL and lone surrogate (in keys and strings) replaced by U+FFFD. */
export function replaceUnstorable(value: unknown): unknown {
  if (typeof value === "string") return isUnstorableText(value) ? storable(value) : value;
  if (Array.isArray(value)) return value.map(replaceUnstorable);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [storable(key), replaceUnstorable(inner)]));
  }
  return value;
}

const LONE_SURROGATES = /[\uD800-\uDFFF]/gu;
const storable = (text: string) => text.replaceAll("\u0000", "\uFFFD").replace(LONE_SURROGATES, "\uFFFD");

export function containsUnstorable(value: unknown): boolean {
  const found = inspectJson(value);
  return found.unstorable || found.tooDeep;
}

export const UNSTORABLE_MESSAGE = "Text must not contain NUL (U+0000) characters or unpaired UTF-16 surrogates.";
