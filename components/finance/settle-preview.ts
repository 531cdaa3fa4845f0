import { currencyDecimals } from "@/lib/domain/currency";
import { planSettle } from "@/lib/domain/holds";
import { tryParseMoneyToMicros } from "@/lib/domain/money";

export type SettlePreview =
  | { ok: true; chargeMicros: number; settledMicros: number; releasedMicros: number; overageMicros: number }
  | { ok: false; message: string };

/** What to show in an empty charge field and as an example: "0.00" and "0.42" for USD, "0" and "420" for JPY. */
export function chargeExamples(currency: string): { placeholder: string; example: string } {
  const decimals = currencyDecimals(currency);
  if (decimals === 0) return { placeholder: "0", example: "420" };
  return { placeholder: `0.${"0".repeat(decimals)}`, example: `0.${"425".slice(0, decimals).padEnd(decimals, "0")}` };
}

/**
 * What a settle will book, computed by the same plan the service applies, from the charge as the
 * person typed it in currency units ("0.42"), converted to micro-units without a float. A charge
 * is money that changed hands, so it has at most the currency's own decimals.
 */
export function previewSettle(heldMicros: number, currency: string, text: string): SettlePreview {
  if (text.trim() === "") return { ok: false, message: "Enter the amount the provider charged." };
  const parsed = tryParseMoneyToMicros(text, currency);
  if (!parsed.ok) {
    const decimals = currencyDecimals(currency);
    const places = decimals === 0 ? "no decimals" : `at most ${decimals} decimals`;
    return {
      ok: false,
      message: `Enter a plain amount such as ${chargeExamples(currency).example}: digits, ${places}, no symbols.`,
    };
  }
  if (parsed.value === 0) return { ok: false, message: "A charge of zero is a release; use Release instead." };
  const plan = planSettle({ amountMicros: heldMicros, status: "held" }, parsed.value);
  if (!plan.ok) return { ok: false, message: plan.error.message };
  const sum = (kind: string) => plan.value.entries.find((e) => e.kind === kind)?.amountMicros ?? 0;
  return {
    ok: true,
    chargeMicros: parsed.value,
    settledMicros: sum("settle"),
    releasedMicros: sum("release"),
    overageMicros: sum("overage"),
  };
}
