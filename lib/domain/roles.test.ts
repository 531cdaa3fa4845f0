import { describe, expect, it } from "vitest";
import { can, PERMISSIONS, permissionsOf, ROLES } from "./roles";

// The table is written out here on purpose: a change to who may do what must change this test.
const EXPECTED: Record<(typeof ROLES)[number], string[]> = {
  operator: ["case:assign", "case:note", "case:notify_producer", "case:read"],
  reviewer: [
    "case:accept_failure",
    "case:approve",
    "case:assign",
    "case:export_evidence",
    "case:note",
    "case:notify_producer",
    "case:read",
    "case:reconcile",
    "case:view_outputs",
    "pause:set",
    "replacement:request",
  ],
  finance: [
    "case:export_evidence",
    "case:note",
    "case:read",
    "case:view_outputs",
    "hold:decide",
    "hold:read",
    "replacement:authorize",
    "spend_limit:set",
    "usage:import",
  ],
  admin: [
    "admin:api_keys",
    "admin:settings",
    "admin:users",
    "admin:worker_tokens",
    "case:export_evidence",
    "case:notify_producer",
    "case:read",
    "case:view_outputs",
    "pause:set",
    "usage:import",
  ],
  viewer: ["case:read"],
};

describe("roles and permissions", () => {
  it.each(ROLES)("%s has exactly its permissions", (role) => {
    expect([...permissionsOf([role])].sort()).toEqual(EXPECTED[role]);
    for (const permission of PERMISSIONS) {
      expect(can([role], permission)).toBe(EXPECTED[role].includes(permission));
    }
  });

  it("unions the permissions of several roles and grants nothing to no role", () => {
    expect(can(["reviewer", "finance"], "replacement:authorize")).toBe(true);
    expect(can(["reviewer", "finance"], "admin:users")).toBe(false);
    expect(permissionsOf([]).size).toBe(0);
  });
});
