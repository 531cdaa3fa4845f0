export const ROLES = ["operator", "reviewer", "finance", "admin", "viewer"] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/**
 * Permissions are what services check; roles only grant them. One table, read by the
 * console (to show or hide controls) and by every service (to refuse), so the two agree.
 */
export const PERMISSIONS = [
  "case:read",
  "case:note",
  "case:assign",
  "case:reconcile",
  "case:approve",
  "case:accept_failure",
  "case:export_evidence",
  /** Play or download a case's delivered outputs, the producer's own videos (decision 067). */
  "case:view_outputs",
  /** Resend a case's given-up notifications to its producer (decision 045). */
  "case:notify_producer",
  "replacement:request",
  "replacement:authorize",
  "hold:read",
  "hold:decide",
  "spend_limit:set",
  /** Import a provider's usage and settle holds at its real charge; read the gap (decision 073). */
  "usage:import",
  /** Pause and resume a provider's, producer's or model's recoveries and sends (decision 064). */
  "pause:set",
  "admin:users",
  "admin:api_keys",
  "admin:worker_tokens",
  "admin:settings",
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const GRANTS: Record<Role, readonly Permission[]> = {
  operator: ["case:read", "case:note", "case:assign", "case:notify_producer"],
  reviewer: [
    "case:read",
    "case:note",
    "case:assign",
    "case:reconcile",
    "case:approve",
    "case:accept_failure",
    "case:export_evidence",
    "case:view_outputs",
    "case:notify_producer",
    "replacement:request",
    // Stopping recoveries is the safe direction of the reviewer's own approvals (decision 064).
    "pause:set",
  ],
  // Evidence packets are for billing disputes (finance) and reviews (reviewer, admin); decision 029.
  finance: [
    "case:read",
    "case:note",
    "case:export_evidence",
    "case:view_outputs",
    "hold:read",
    "hold:decide",
    "replacement:authorize",
    "spend_limit:set",
    "usage:import",
  ],
  admin: [
    "case:read",
    "case:export_evidence",
    "case:view_outputs",
    "case:notify_producer",
    "admin:users",
    "admin:api_keys",
    "admin:worker_tokens",
    "admin:settings",
    "pause:set",
    // Provider billing exports are an account's papers, which admins hold (decision 073).
    "usage:import",
  ],
  // Reads what an operator reads; writes nothing, not even a note or an assignment.
  viewer: ["case:read"],
};

export function permissionsOf(roles: readonly Role[]): Set<Permission> {
  return new Set(roles.flatMap((role) => GRANTS[role]));
}

export function can(roles: readonly Role[], permission: Permission): boolean {
  return roles.some((role) => GRANTS[role].includes(permission));
}
