import { type MicrosTotal, toMicrosTotal } from "@/lib/domain/money";
import { AppError } from "@/lib/errors";

/**
 * A single stored amount or a windowed figure used in arithmetic on the server (a spend limit and
 * its use): exact within the safe range. Past it, an error for that one figure's caller; totals
 * shown to people go through `toTotal` instead, which never fails (decision 051).
 */
export function toMicros(value: bigint | number | null | undefined): number {
  const big = typeof value === "bigint" ? value : BigInt(value ?? 0);
  if (big > BigInt(Number.MAX_SAFE_INTEGER) || big < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new AppError("internal", "A money total is too large to represent exactly.");
  }
  return Number(big);
}

/** A sum for the console and the API: its exact decimal string, whatever its size (decision 051). */
export function toTotal(value: bigint | number | string | null | undefined): MicrosTotal {
  return toMicrosTotal(value);
}

export function toCount(value: bigint | number | null | undefined): number {
  return Number(value ?? 0);
}
