import { currencyDecimals, currencyFormatter, isCurrencyCode, MICRO_DECIMALS } from "./currency";
import { DomainError, fail, ok, type Result } from "./errors";

/** Micro-units are millionths of the currency's major unit, whatever the currency. */
export const MICROS_PER_UNIT = 1_000_000;

/**
 * An exact sum of micro-units as a decimal string ("12345", "-7"): how totals leave the server, so
 * no figure is rounded past 2^53 on its way to a browser or a program (decision 051).
 */
export type MicrosTotal = `${bigint}`;

/**
 * A whole number of micro-units: a safe integer from JSON, a bigint straight from a BIGINT column,
 * or a total's exact decimal string.
 */
export type Micros = number | bigint | MicrosTotal;

const TOTAL_PATTERN = /^-?\d{1,30}$/;

/** The exact decimal string of a sum; SQL sums arrive as bigint (or numeric text), null as zero. */
export function toMicrosTotal(value: bigint | number | string | null | undefined): MicrosTotal {
  if (value === null || value === undefined) return "0";
  if (typeof value === "bigint") return value.toString() as MicrosTotal;
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value) as MicrosTotal;
  if (typeof value === "string" && TOTAL_PATTERN.test(value)) return BigInt(value).toString() as MicrosTotal;
  throw new DomainError("invalid_amount", "a money total must be a whole number of micro-units", {
    value: String(value),
  });
}

/**
 * A total as a number for arithmetic a browser does (a chart's scale): exact within the safe range,
 * null beyond it, so the caller shows that figure as an error instead of a wrong one.
 */
export function totalAsNumber(total: Micros): number | null {
  let big: bigint;
  try {
    big = requireMicros(total, "total", { allowNegative: true });
  } catch {
    return null;
  }
  return big > BigInt(Number.MAX_SAFE_INTEGER) || big < BigInt(Number.MIN_SAFE_INTEGER) ? null : Number(big);
}

export type Price = { unit: "generation"; priceMicros: number } | { unit: "second"; priceMicrosPerSecond: number };

const AMOUNT_PATTERN = /^(\d{1,16})(?:\.(\d+))?$/;

function requireMicros(value: Micros, field: string, { allowNegative = false } = {}): bigint {
  const whole =
    typeof value === "bigint" ||
    (typeof value === "number" && Number.isSafeInteger(value)) ||
    (typeof value === "string" && TOTAL_PATTERN.test(value));
  if (!whole || (!allowNegative && BigInt(value) < 0n)) {
    throw new DomainError("invalid_amount", `${field} must be a whole number of micro-units`, {
      [field]: String(value),
    });
  }
  return BigInt(value);
}

function toSafeNumber(value: bigint, field: string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new DomainError("invalid_amount", `${field} is too large to represent exactly`);
  }
  return Number(value);
}

/**
 * The exact decimal of an amount in major units, built from the integer (never a float division):
 * 1_234_500 -> "1.2345", -1 -> "-0.000001", 2_000_000 -> "2".
 */
export function microsToDecimal(micros: Micros): `${number}` {
  const value = requireMicros(micros, "micros", { allowNegative: true });
  const abs = value < 0n ? -value : value;
  const unit = BigInt(MICROS_PER_UNIT);
  const fraction = (abs % unit).toString().padStart(MICRO_DECIMALS, "0").replace(/0+$/, "");
  return `${value < 0n ? "-" : ""}${abs / unit}${fraction ? `.${fraction}` : ""}` as `${number}`;
}

/**
 * For spreadsheets: the exact amount as a plain decimal, without symbol or grouping, with at least
 * the currency's own decimals (USD 9600000 -> "9.60", JPY 5000000 -> "5") and any finer
 * micro-units kept rather than rounded (USD 1234567 -> "1.234567"), so the column adds up exactly.
 */
export function microsToAmount(micros: Micros, currency: string): string {
  const exact = microsToDecimal(micros);
  const [whole, fraction = ""] = exact.split(".");
  const decimals = Math.min(currencyDecimals(currency), MICRO_DECIMALS);
  const digits = fraction.padEnd(decimals, "0");
  return digits ? `${whole}.${digits}` : `${whole}`;
}

/**
 * For people: the currency's symbol and its own decimals (USD $1.23, JPY ¥1, KWD KWD 1.235), rounded
 * half away from zero. Intl formats the exact decimal string, so amounts past 2^53 micros stay exact.
 * Stored and compared amounts stay in micros.
 */
export function formatMicros(micros: Micros, currency: string): string {
  return currencyFormatter(currency, "minor").format(microsToDecimal(micros));
}

/** For prices such as $0.022/s where the minor unit would hide the real rate: up to six decimals. */
export function formatMicrosPrecise(micros: Micros, currency: string): string {
  return currencyFormatter(currency, "micro").format(microsToDecimal(micros));
}

function decimalsProblem(currency: string | undefined, decimals: number): string {
  if (currency === undefined) return `at most ${decimals} decimals`;
  return decimals === 0
    ? `${currency} amounts have no decimals`
    : `${currency} amounts have at most ${decimals} decimals`;
}

/**
 * Parses a plain decimal such as "0.10" without ever going through a float. Signs, exponents,
 * separators and currency symbols are refused, not guessed at. With a currency, an amount has at
 * most that currency's decimals (JPY none, USD 2, KWD 3); without one, at most six (a price per
 * second, or a threshold that applies to every currency). More decimals are refused, never rounded.
 */
export function tryParseMoneyToMicros(text: string, currency?: string): Result<number> {
  if (currency !== undefined && !isCurrencyCode(currency)) {
    return fail("invalid_input", "currency must be a three-letter upper-case code", { currency });
  }
  const match = typeof text === "string" ? AMOUNT_PATTERN.exec(text.trim()) : null;
  if (!match?.[1]) return fail("invalid_amount", "expected a plain decimal amount", { text });
  const digits = match[2] ?? "";
  const decimals = currency === undefined ? MICRO_DECIMALS : currencyDecimals(currency);
  if (digits.length > decimals) return fail("invalid_amount", decimalsProblem(currency, decimals), { text, decimals });
  const total = BigInt(match[1]) * BigInt(MICROS_PER_UNIT) + BigInt(digits.padEnd(MICRO_DECIMALS, "0"));
  if (total > BigInt(Number.MAX_SAFE_INTEGER)) return fail("invalid_amount", "amount too large");
  return ok(Number(total));
}

export function parseMoneyToMicros(text: string, currency?: string): number {
  const parsed = tryParseMoneyToMicros(text, currency);
  if (!parsed.ok) throw parsed.error;
  return parsed.value;
}

/**
 * Billable seconds are whole seconds: the provider's billing increment decides the number,
 * and a fraction here would mean a rounding rule nobody agreed to.
 */
export function costOfGeneration(price: Price, billableSeconds?: number): number {
  if (price.unit === "generation") {
    return toSafeNumber(requireMicros(price.priceMicros, "priceMicros"), "cost");
  }
  if (billableSeconds === undefined || !Number.isSafeInteger(billableSeconds) || billableSeconds <= 0) {
    throw new DomainError("invalid_input", "a per-second price needs whole billable seconds", {
      billableSeconds,
    });
  }
  const rate = requireMicros(price.priceMicrosPerSecond, "priceMicrosPerSecond");
  return toSafeNumber(rate * BigInt(billableSeconds), "cost");
}

/** What `count` accidental extra generations would cost: shown before a replacement is asked for. */
export function duplicateCost(price: Price, count: number, billableSeconds?: number): number {
  if (!Number.isSafeInteger(count) || count < 0) {
    throw new DomainError("invalid_input", "count must be a non-negative whole number", { count });
  }
  return toSafeNumber(BigInt(costOfGeneration(price, billableSeconds)) * BigInt(count), "cost");
}
