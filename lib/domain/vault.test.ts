import { describe, expect, it } from "vitest";
import {
  DEFAULT_VAULT_POLICY,
  parseVaultProviders,
  planAfterFailure,
  planCopy,
  vaultKeeps,
  vaultKey,
  vaultPolicyOf,
} from "./vault";

const now = new Date("2026-12-07T12:00:00Z");
const inAnHour = new Date("2026-12-07T13:00:00Z");
const policy = { ...DEFAULT_VAULT_POLICY, maxFileBytes: 100, maxTotalBytes: 1_000 };

describe("which providers the vault keeps", () => {
  it("keeps only providers with short retention by default, every one with all, none when off", () => {
    expect(vaultKeeps(DEFAULT_VAULT_POLICY, "replicate", 3_600)).toBe(true);
    expect(vaultKeeps(DEFAULT_VAULT_POLICY, "runway", 24 * 3_600)).toBe(false);
    expect(vaultKeeps(DEFAULT_VAULT_POLICY, "luma", undefined)).toBe(false);
    expect(vaultKeeps({ ...policy, providers: "all" }, "luma", undefined)).toBe(true);
    expect(vaultKeeps({ ...policy, providers: "off" }, "fal", 3_600)).toBe(false);
    expect(vaultKeeps({ ...policy, providers: ["runway"] }, "runway", 24 * 3_600)).toBe(true);
    expect(vaultKeeps({ ...policy, providers: ["runway"] }, "fal", 3_600)).toBe(false);
  });

  it("reads the setting's words and lists, and refuses anything else", () => {
    expect(parseVaultProviders(" Short ")).toBe("short");
    expect(parseVaultProviders("fal, replicate")).toEqual(["fal", "replicate"]);
    expect(parseVaultProviders("fal;rm")).toBeNull();
    expect(parseVaultProviders(" , ")).toBeNull();
  });
});

describe("planning a copy", () => {
  it("misses what expired, what is declared too large, and what the vault has no room for", () => {
    expect(planCopy({ expiresAt: now, declaredBytes: null }, 0, policy, now)).toEqual({
      kind: "missed",
      reason: "expired",
    });
    expect(planCopy({ expiresAt: inAnHour, declaredBytes: 101 }, 0, policy, now)).toEqual({
      kind: "missed",
      reason: "too_large",
    });
    expect(planCopy({ expiresAt: inAnHour, declaredBytes: 50 }, 960, policy, now)).toEqual({
      kind: "missed",
      reason: "vault_full",
    });
    expect(planCopy({ expiresAt: inAnHour, declaredBytes: null }, 1_000, policy, now)).toEqual({
      kind: "missed",
      reason: "vault_full",
    });
  });

  it("cuts an undeclared download at the smaller of one file's bound and the room left", () => {
    expect(planCopy({ expiresAt: inAnHour, declaredBytes: null }, 0, policy, now)).toEqual({
      kind: "copy",
      maxBytes: 100,
    });
    expect(planCopy({ expiresAt: inAnHour, declaredBytes: null }, 960, policy, now)).toEqual({
      kind: "copy",
      maxBytes: 40,
    });
  });
});

describe("after a failed copy", () => {
  const bound = { maxBytes: 100, maxFileBytes: 100 };
  it("misses for good what a retry cannot change, naming the bound that cut it", () => {
    expect(planAfterFailure("too_large", bound, 1, inAnHour, now)).toEqual({ kind: "missed", reason: "too_large" });
    expect(planAfterFailure("too_large", { maxBytes: 40, maxFileBytes: 100 }, 1, inAnHour, now)).toEqual({
      kind: "missed",
      reason: "vault_full",
    });
    expect(planAfterFailure("not_available", bound, 1, inAnHour, now)).toEqual({ kind: "missed", reason: "gone" });
    expect(planAfterFailure("host_not_allowed", bound, 1, inAnHour, now)).toEqual({
      kind: "missed",
      reason: "refused",
    });
  });

  it("retries anything else with a growing wait, never past the expiry, which then ends it", () => {
    expect(planAfterFailure("timeout", bound, 1, inAnHour, now)).toEqual({
      kind: "retry",
      at: new Date(now.getTime() + 30_000),
    });
    expect(planAfterFailure("http_error", bound, 3, inAnHour, now)).toEqual({
      kind: "retry",
      at: new Date(now.getTime() + 120_000),
    });
    expect(planAfterFailure("timeout", bound, 30, inAnHour, now)).toEqual({ kind: "retry", at: inAnHour });
    expect(planAfterFailure("timeout", bound, 1, now, now)).toEqual({ kind: "missed", reason: "expired" });
  });
});

it("names a vault file by immutable IDs and the claim's token", () => {
  expect(vaultKey({ operationRef: "op", attemptRef: "at", outputIndex: 2, claimToken: 3 })).toBe(
    "vault/op/at/output-2/claim-3",
  );
});

it("reads the policy from the settings, the documented defaults where one is unset", () => {
  expect(vaultPolicyOf({})).toEqual(DEFAULT_VAULT_POLICY);
  expect(vaultPolicyOf({ VAULT_PROVIDERS: "fal", VAULT_MAX_FILE_BYTES: 10, VAULT_KEEP_HOURS: 2 })).toEqual({
    ...DEFAULT_VAULT_POLICY,
    providers: ["fal"],
    maxFileBytes: 10,
    keepSeconds: 7_200,
  });
});
