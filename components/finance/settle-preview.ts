import { planSettle } from "@/lib/domain/holds";
import { tryParseMoneyToMicros } from "@/lib/domain/money";

export type SettlePreview =
  | { ok: true; chargeMicros: number; settledMicros: number; releasedMicros: number; overageMicros: number }
  | { ok: false; message: string };

/**
 * What a settle will book, computed by the same plan the service applies, from the charge as the
 * person typed it in currency units ("0.42"), converted to micro-units without a float.
 */
export function previewSettle(heldMicros: number, text: string): SettlePreview {
  if (text.trim() === "") return { ok: false, message: "Enter the amount the provider charged." };
  const parsed = tryParseMoneyToMicros(text);
  if (!parsed.ok) {
    return { ok: false, message: "Enter a plain amount such as 0.42: digits, at most six decimals, no symbols." };
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
