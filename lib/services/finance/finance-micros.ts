import { AppError } from "@/lib/errors";

/**
 * SQL sums arrive as bigint; the console and JSON carry money as integer numbers, so a value
 * past the safe range is an error rather than a silently rounded amount.
 */
export function toMicros(value: bigint | number | null | undefined): number {
  const big = typeof value === "bigint" ? value : BigInt(value ?? 0);
  if (big > BigInt(Number.MAX_SAFE_INTEGER) || big < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new AppError("internal", "A money total is too large to represent exactly.");
  }
  return Number(big);
}

export function toCount(value: bigint | number | null | undefined): number {
  return Number(value ?? 0);
}
