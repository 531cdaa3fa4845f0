/** Server-formatted, in UTC, so the server's and the browser's renderings always agree. */
export function formatWhen(date: Date | null | undefined, fallback = "never"): string {
  if (!date) return fallback;
  return `${date.toISOString().replace("T", " ").slice(0, 16)} UTC`;
}

export type TokenStatus = "active" | "revoked" | "expired";

export function tokenStatus(token: { revokedAt: Date | null; expiresAt: Date | null }, now = new Date()): TokenStatus {
  if (token.revokedAt) return "revoked";
  if (token.expiresAt && token.expiresAt <= now) return "expired";
  return "active";
}
