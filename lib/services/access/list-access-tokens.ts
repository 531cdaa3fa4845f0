import type { TokenKind } from "@/lib/auth/token-secret";
import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import { requirePermission } from "./actor";

export type TokenListItem = {
  id: string;
  kind: TokenKind;
  name: string;
  prefix: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
};

/**
 * Producer keys and worker tokens for admins; personal tokens only ever the actor's own. Never
 * the hash, never the secret: the prefix is what identifies a token after it was issued.
 */
export async function listAccessTokens(db: Db, actor: Principal, kind: TokenKind): Promise<TokenListItem[]> {
  let userId: string | undefined;
  if (kind === "personal") {
    if (actor.kind !== "user") throw new AppError("forbidden", "Personal tokens belong to signed-in users.");
    userId = actor.userId;
  } else {
    requirePermission(actor, kind === "api_key" ? "admin:api_keys" : "admin:worker_tokens");
  }
  return db.accessToken.findMany({
    where: { kind, ...(userId ? { userId } : {}) },
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
    select: {
      id: true,
      kind: true,
      name: true,
      prefix: true,
      createdAt: true,
      expiresAt: true,
      revokedAt: true,
      lastUsedAt: true,
    },
  });
}
