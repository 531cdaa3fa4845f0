import { hashToken, tokenKindOf } from "@/lib/auth/token-secret";
import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";

/** Last-used times are recorded at most this often, so a busy key does not write on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Resolves a bearer secret to its principal: a producer key, a worker token, or a personal token
 * acting as its (active) user with that user's current roles. Revoked or expired tokens are nobody.
 */
export async function authenticateToken(db: Db, secret: string, workerId?: string): Promise<Principal | null> {
  const kind = tokenKindOf(secret);
  if (!kind || secret.length > 200) return null;
  // Producer keys and worker tokens need no user: one query on the API's hottest path.
  const token = await db.accessToken.findUnique({ where: { tokenHash: hashToken(secret) } });
  const now = new Date();
  if (!token || token.kind !== kind || token.revokedAt || (token.expiresAt && token.expiresAt <= now)) return null;
  if (!token.lastUsedAt || now.getTime() - token.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await db.accessToken.update({ where: { id: token.id }, data: { lastUsedAt: now } });
  }
  switch (token.kind) {
    case "api_key":
      return { kind: "api_key", apiKeyId: token.id, name: token.name };
    case "worker":
      return { kind: "worker", tokenId: token.id, name: token.name, workerId: workerId ?? token.name };
    case "personal": {
      const user = token.userId ? await db.user.findUnique({ where: { id: token.userId } }) : null;
      if (!user?.active) return null;
      return { kind: "user", userId: user.id, email: user.email, name: user.name, roles: user.roles };
    }
  }
}
