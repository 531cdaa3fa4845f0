import { describe, expect, it } from "vitest";
import {
  canAuthorizeReplacement,
  isReplacementExpired,
  type ReplacementAuthorization,
  replacementExpiry,
} from "./replacement";

const requestedAt = new Date("2026-11-06T12:00:00Z");
const valid: ReplacementAuthorization = {
  requestedBy: "reviewer-1",
  authorizer: { id: "finance-1", roles: ["finance"] },
  status: "pending",
  expiresAt: replacementExpiry(requestedAt, 3600),
  now: new Date("2026-11-06T12:30:00Z"),
};
const codeOf = (input: ReplacementAuthorization) => {
  const result = canAuthorizeReplacement(input);
  return result.ok ? "ok" : result.error.code;
};

describe("canAuthorizeReplacement", () => {
  it("allows a different finance user before expiry", () => {
    expect(codeOf(valid)).toBe("ok");
    expect(codeOf({ ...valid, authorizer: { id: "finance-1", roles: ["reviewer", "finance"] } })).toBe("ok");
  });

  it("refuses the requester even when they hold finance", () => {
    expect(codeOf({ ...valid, authorizer: { id: "reviewer-1", roles: ["reviewer", "finance"] } })).toBe(
      "four_eyes_violation",
    );
  });

  it("refuses anyone without the finance role, admins included", () => {
    for (const roles of [[], ["operator"], ["reviewer"], ["admin"], ["operator", "reviewer", "admin"]] as const) {
      expect(codeOf({ ...valid, authorizer: { id: "someone", roles } })).toBe("forbidden");
    }
  });

  it("refuses blank identities rather than comparing them", () => {
    expect(codeOf({ ...valid, requestedBy: "" })).toBe("four_eyes_violation");
    expect(codeOf({ ...valid, authorizer: { id: " ", roles: ["finance"] } })).toBe("four_eyes_violation");
  });

  it("refuses requests that are no longer pending", () => {
    for (const status of ["authorized", "declined", "expired"] as const) {
      expect(codeOf({ ...valid, status })).toBe("illegal_transition");
    }
  });

  it("refuses at and after the expiry instant", () => {
    expect(codeOf({ ...valid, now: new Date("2026-11-06T12:59:59.999Z") })).toBe("ok");
    expect(codeOf({ ...valid, now: new Date("2026-11-06T13:00:00Z") })).toBe("replacement_expired");
    expect(codeOf({ ...valid, now: new Date("2026-11-07T00:00:00Z") })).toBe("replacement_expired");
  });
});

describe("replacementExpiry", () => {
  it("adds the ttl and defaults to 72 hours", () => {
    expect(replacementExpiry(requestedAt, 60).toISOString()).toBe("2026-11-06T12:01:00.000Z");
    expect(replacementExpiry(requestedAt).toISOString()).toBe("2026-11-09T12:00:00.000Z");
    expect(isReplacementExpired(replacementExpiry(requestedAt, 60), requestedAt)).toBe(false);
  });

  it("refuses non-positive or fractional ttl", () => {
    for (const ttl of [0, -1, 1.5, Number.NaN]) expect(() => replacementExpiry(requestedAt, ttl)).toThrow(RangeError);
  });
});
