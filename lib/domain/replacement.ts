import { fail, ok, type Result } from "./errors";
import { can, type Role } from "./roles";

export const REPLACEMENT_STATUSES = ["pending", "authorized", "declined", "expired", "withdrawn"] as const;
export type ReplacementStatus = (typeof REPLACEMENT_STATUSES)[number];

/** Long enough for a finance colleague in another time zone, short enough that prices hold. */
export const DEFAULT_REPLACEMENT_TTL_SECONDS = 72 * 60 * 60;

export interface ReplacementAuthorization {
  requestedBy: string;
  authorizer: { id: string; roles: readonly Role[] };
  status: ReplacementStatus;
  expiresAt: Date;
  now: Date;
}

export function replacementExpiry(requestedAt: Date, ttlSeconds = DEFAULT_REPLACEMENT_TTL_SECONDS): Date {
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds <= 0) {
    throw new RangeError("ttlSeconds must be a positive whole number");
  }
  return new Date(requestedAt.getTime() + ttlSeconds * 1000);
}

export function isReplacementExpired(expiresAt: Date, now: Date): boolean {
  return now.getTime() >= expiresAt.getTime();
}

/**
 * A replacement is a second paid generation, so it needs two different people: the reviewer who
 * asked and a finance user who agrees to fund it. Holding both roles does not let one person be
 * both, and an expired request is never revived by authorising it late.
 */
export function canAuthorizeReplacement(input: ReplacementAuthorization): Result<void> {
  const { requestedBy, authorizer, status, expiresAt, now } = input;
  if (!can(authorizer.roles, "replacement:authorize")) {
    return fail("forbidden", "authorising a replacement needs the finance role");
  }
  if (authorizer.id.trim() === "" || requestedBy.trim() === "" || authorizer.id === requestedBy) {
    return fail("four_eyes_violation", "the requester cannot authorise their own replacement");
  }
  if (status !== "pending") {
    return fail("illegal_transition", `the replacement request is already ${status}`, { status });
  }
  if (isReplacementExpired(expiresAt, now)) {
    return fail("replacement_expired", "the replacement request has expired", {
      expiresAt: expiresAt.toISOString(),
    });
  }
  return ok(undefined);
}
