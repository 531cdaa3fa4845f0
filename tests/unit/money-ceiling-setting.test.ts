import { describe, expect, it } from "vitest";
import { DEFAULT_MONEY_CEILING_MICROS } from "@/lib/domain/money-ceiling";
import { EnvError, parseEnv } from "@/lib/env";

// Decision 051: the money ceiling is a setting with a safe default, and nonsense stops the process.
const production = {
  AUTH_SECRET: "x".repeat(32),
  DATABASE_URL: "postgresql://app@db/app",
  PROVIDER_MODE: "live",
  REPLICATE_API_TOKEN: "r8_test",
};

describe("MONEY_CEILING_MICROS", () => {
  it("defaults to 10,000 units of the currency", () => {
    expect(parseEnv(production).MONEY_CEILING_MICROS).toBe(DEFAULT_MONEY_CEILING_MICROS);
    expect(DEFAULT_MONEY_CEILING_MICROS).toBe(10_000_000_000);
  });

  it("takes a sensible value", () => {
    expect(parseEnv({ ...production, MONEY_CEILING_MICROS: "500000000000" }).MONEY_CEILING_MICROS).toBe(
      500_000_000_000,
    );
  });

  it.each(["0", "-1", "999999", "1.5", "ten", "9007199254740991", "1e16"])("refuses %j at start", (value) => {
    expect(() => parseEnv({ ...production, MONEY_CEILING_MICROS: value })).toThrow(EnvError);
  });
});
