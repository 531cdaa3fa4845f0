import { microsToDecimal, tryParseMoneyToMicros } from "@/lib/domain/money";
import { type ListCasesQuery, listCasesSchema } from "@/lib/validation/list-cases";

/**
 * URL search params -> list query. Empty fields are dropped; minutes become seconds and an amount
 * typed in currency units ("held at least 5.50") becomes micro-units. An invalid URL (hand-edited)
 * yields the default view plus a message instead of an error page.
 */
export function parseQueueParams(raw: Record<string, string | string[] | undefined>): {
  query: ListCasesQuery;
  problem: string | null;
} {
  const flat: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined && first !== "") flat[key] = first;
  }
  if (flat.minAgeMinutes) {
    flat.minAgeSeconds = String(Number(flat.minAgeMinutes) * 60);
    delete flat.minAgeMinutes;
  }
  if (flat.minHeld) {
    // Typed in the chosen currency's units (JPY has none, KWD three); across currencies, micro precision.
    const currency = /^[A-Z]{3}$/.test(flat.currency ?? "") ? flat.currency : undefined;
    const held = tryParseMoneyToMicros(flat.minHeld, currency);
    delete flat.minHeld;
    if (!held.ok) {
      return {
        query: listCasesSchema.parse({}),
        problem: `"Held at least" takes a plain amount such as 5 or 0.50 (${held.error.message}); showing all open cases.`,
      };
    }
    flat.minAmountMicros = String(held.value);
  }
  const parsed = listCasesSchema.safeParse(flat);
  if (parsed.success) return { query: parsed.data, problem: null };
  return {
    query: listCasesSchema.parse({}),
    problem: `Some filters were not understood (${parsed.error.issues.map((i) => i.path.join(".")).join(", ")}); showing all open cases.`,
  };
}

export function queueHref(query: Partial<ListCasesQuery>): string {
  const text = queueQueryString(query);
  return text ? `/queue?${text}` : "/queue";
}

/** The queue's URL query for a list query, in the words its URL uses (minutes, amounts in units). */
export function queueQueryString(query: Partial<ListCasesQuery>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === "") continue;
    if (key === "minAgeSeconds") params.set("minAgeMinutes", String(Math.floor(Number(value) / 60)));
    else if (key === "minAmountMicros") params.set("minHeld", microsToDecimal(Number(value)));
    else if (key === "sort" && value === "age") continue;
    else if (key === "limit" && Number(value) === 50) continue;
    else params.set(key, String(value));
  }
  return params.toString();
}
