import * as canonical from "./canonical-json";
import { DomainError } from "./errors";

const FINGERPRINT_PATTERN = /^sha256:[0-9a-f]{64}$/;

export function isFingerprint(value: unknown): value is string {
  return typeof value === "string" && FINGERPRINT_PATTERN.test(value);
}

/**
 * The canonical form of ./canonical-json.ts (which the producer SDK compiles in), refusing what has
 * none with the app's own error, so a request that cannot be fingerprinted is a 400, not a 500.
 */
export function canonicalJson(value: unknown): string {
  return asDomainError(() => canonical.canonicalJson(value));
}

export function requestFingerprint(value: unknown): string {
  return asDomainError(() => canonical.requestFingerprint(value));
}

function asDomainError<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof canonical.CanonicalJsonError) {
      throw new DomainError("invalid_input", error.message, { path: error.path });
    }
    throw error;
  }
}
