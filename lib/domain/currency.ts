import { DomainError } from "./errors";

/**
 * The console's one locale. Counts and dates elsewhere are already written the en-US way; money
 * follows, so a page never mixes two groupings.
 */
export const CONSOLE_LOCALE = "en-US";

/** Six decimals: one micro-unit, the finest amount the ledger can hold. */
export const MICRO_DECIMALS = 6;

/**
 * `minor` rounds to the currency's own smallest unit (USD cents, whole yen, KWD fils): amounts.
 * `micro` shows up to six decimals: prices per second such as $0.022, which cents would hide.
 */
export type Precision = "minor" | "micro";

type Formatters = { decimals: number; minor: Intl.NumberFormat; micro: Intl.NumberFormat };

// Building an Intl.NumberFormat costs far more than using one (docs/decisions/020): one set per
// locale and currency, kept for the life of the process; three letters bound it (26^3 codes).
const cache = new Map<string, Formatters>();

export function isCurrencyCode(text: string): boolean {
  return /^[A-Z]{3}$/.test(text);
}

/**
 * Browsers older than Intl.NumberFormat v3 (Firefox 116, Safari 15.4) refuse `signDisplay:
 * "negative"` with a RangeError; there a tiny negative amount reads "-$0.00" rather than the page
 * failing. (They also ignore `roundingMode`, whose default is the same, and format the decimal
 * string as a float: exact to 15 significant digits.) Node 20 has v3.
 */
function numberFormat(locale: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  try {
    return new Intl.NumberFormat(locale, options);
  } catch (error) {
    if (!(error instanceof RangeError) || options.signDisplay !== "negative") throw error;
    return new Intl.NumberFormat(locale, { ...options, signDisplay: "auto" });
  }
}

function formatters(currency: string, locale: string): Formatters {
  if (!isCurrencyCode(currency)) {
    throw new DomainError("invalid_input", "currency must be a three-letter upper-case code");
  }
  const key = `${locale}|${currency}`;
  const cached = cache.get(key);
  if (cached) return cached;
  // Half away from zero, as before and as people round by hand; "negative" keeps a tiny negative
  // amount that rounds to zero from reading "-$0.00".
  const base = { style: "currency", currency, roundingMode: "halfExpand", signDisplay: "negative" } as const;
  const minor = numberFormat(locale, base);
  // CLDR's minor-unit digits for the code (USD 2, JPY 0, KWD 3; 2 for a code it does not know).
  const decimals = minor.resolvedOptions().maximumFractionDigits ?? 2;
  const micro = numberFormat(locale, {
    ...base,
    minimumFractionDigits: Math.min(decimals, MICRO_DECIMALS),
    maximumFractionDigits: MICRO_DECIMALS,
  });
  const made = { decimals, minor, micro };
  cache.set(key, made);
  return made;
}

/** How many decimals an amount of this currency has: USD 2, JPY 0, KWD 3. */
export function currencyDecimals(currency: string, locale = CONSOLE_LOCALE): number {
  return formatters(currency, locale).decimals;
}

export function currencyFormatter(currency: string, precision: Precision, locale = CONSOLE_LOCALE): Intl.NumberFormat {
  return formatters(currency, locale)[precision];
}
