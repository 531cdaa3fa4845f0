import { DomainError, fail, ok, type Result } from "./errors";

/** Micro-units are millionths of the currency's major unit, whatever the currency. */
export const MICROS_PER_UNIT = 1_000_000;

export type Price = { unit: "generation"; priceMicros: number } | { unit: "second"; priceMicrosPerSecond: number };

const CURRENCY_PATTERN = /^[A-Z]{3}$/;
const AMOUNT_PATTERN = /^(\d{1,16})(?:\.(\d{1,6}))?$/;

function requireMicros(value: number, field: string, { allowNegative = false } = {}): bigint {
  if (!Number.isSafeInteger(value) || (!allowNegative && value < 0)) {
    throw new DomainError("invalid_amount", `${field} must be a whole number of micro-units`, {
      [field]: value,
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

function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

function split(micros: number, currency: string): { sign: string; abs: bigint } {
  if (!CURRENCY_PATTERN.test(currency)) {
    throw new DomainError("invalid_input", "currency must be a three-letter upper-case code");
  }
  const value = requireMicros(micros, "micros", { allowNegative: true });
  return { sign: value < 0n ? "-" : "", abs: value < 0n ? -value : value };
}

function withCurrency(sign: string, amount: string, currency: string): string {
  return currency === "USD" ? `${sign}$${amount}` : `${sign}${amount} ${currency}`;
}

/** Rounded half-up to cents for display only; stored and compared amounts stay in micros. */
export function formatMicros(micros: number, currency: string): string {
  const { sign, abs } = split(micros, currency);
  const cents = (abs + 5_000n) / 10_000n;
  const whole = groupThousands((cents / 100n).toString());
  const fraction = (cents % 100n).toString().padStart(2, "0");
  return withCurrency(cents === 0n ? "" : sign, `${whole}.${fraction}`, currency);
}

/** For prices such as $0.022/s where cents would hide the real rate: up to six decimals. */
export function formatMicrosPrecise(micros: number, currency: string): string {
  const { sign, abs } = split(micros, currency);
  const whole = groupThousands((abs / 1_000_000n).toString());
  const fraction = (abs % 1_000_000n)
    .toString()
    .padStart(6, "0")
    .replace(/0{1,4}$/, "");
  return withCurrency(sign, `${whole}.${fraction}`, currency);
}

/**
 * Parses a plain decimal such as "0.10" without ever going through a float. Signs, exponents,
 * separators, currency symbols and more than six decimals are refused, not guessed at.
 */
export function tryParseMoneyToMicros(text: string): Result<number> {
  const match = typeof text === "string" ? AMOUNT_PATTERN.exec(text.trim()) : null;
  if (!match?.[1]) return fail("invalid_amount", "expected a plain decimal amount", { text });
  const whole = BigInt(match[1]) * 1_000_000n;
  const fraction = BigInt((match[2] ?? "").padEnd(6, "0"));
  const total = whole + fraction;
  if (total > BigInt(Number.MAX_SAFE_INTEGER)) return fail("invalid_amount", "amount too large");
  return ok(Number(total));
}

export function parseMoneyToMicros(text: string): number {
  const parsed = tryParseMoneyToMicros(text);
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
