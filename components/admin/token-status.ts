export type TokenStatus = "active" | "revoked" | "expired";

export function tokenStatus(token: { revokedAt: Date | null; expiresAt: Date | null }, now = new Date()): TokenStatus {
  if (token.revokedAt) return "revoked";
  if (token.expiresAt && token.expiresAt <= now) return "expired";
  return "active";
}
