import { describe, expect, it } from "vitest";
import { DomainError, fail, isDomainError, ok, unwrap } from "./errors";
import { normaliseEvidence } from "./evidence";

describe("DomainError", () => {
  it("carries a code, message and details and is a real Error", () => {
    const error = new DomainError("stale_fencing_token", "lost the claim", { current: 3 });
    expect(error).toBeInstanceOf(Error);
    expect(isDomainError(error)).toBe(true);
    expect(isDomainError(new Error("x"))).toBe(false);
    expect([error.name, error.code, error.message, error.details]).toEqual([
      "DomainError",
      "stale_fencing_token",
      "lost the claim",
      { current: 3 },
    ]);
    expect(new DomainError("forbidden").message).toBe("forbidden");
    expect(new DomainError("forbidden").details).toBeUndefined();
  });
});

describe("Result helpers", () => {
  it("wraps and unwraps", () => {
    expect(unwrap(ok(5))).toBe(5);
    const failed = fail("invalid_amount", "nope");
    expect(() => unwrap(failed)).toThrow(failed.error);
  });
});

describe("normaliseEvidence", () => {
  it("trims and refuses blank or non-text evidence", () => {
    expect(normaliseEvidence("  seen it  ")).toEqual({ ok: true, value: "seen it" });
    for (const value of ["", "  \n", null, undefined, 3, {}]) {
      const result = normaliseEvidence(value);
      expect(!result.ok && result.error.code).toBe("evidence_required");
    }
  });
});
