export const MAX_JSON_DEPTH = 32;

/**
 * Walks a parsed JSON value without recursion (a hostile body may nest thousands deep) and reports
 * what the database or the schemas cannot take: U+0000, which PostgreSQL text and jsonb cannot hold,
 * and nesting deeper than any legitimate request needs.
 */
export function inspectJson(value: unknown): { nul: boolean; tooDeep: boolean } {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const item = stack.pop();
    if (!item) break;
    if (item.depth > MAX_JSON_DEPTH) return { nul: false, tooDeep: true };
    const current = item.value;
    if (typeof current === "string") {
      if (current.includes("\u0000")) return { nul: true, tooDeep: false };
    } else if (Array.isArray(current)) {
      for (const inner of current) stack.push({ value: inner, depth: item.depth + 1 });
    } else if (current && typeof current === "object") {
      for (const [key, inner] of Object.entries(current)) {
        if (key.includes("\u0000")) return { nul: true, tooDeep: false };
        stack.push({ value: inner, depth: item.depth + 1 });
      }
    }
  }
  return { nul: false, tooDeep: false };
}

export function containsNul(value: unknown): boolean {
  const found = inspectJson(value);
  return found.nul || found.tooDeep;
}
