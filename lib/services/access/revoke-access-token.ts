import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import { requirePermission } from "./actor";

/** Admins revoke keys and worker tokens; a user revokes their own personal tokens. Idempotent. */
export async function revokeAccessToken(db: Db, actor: Principal, tokenId: string) {
  const token = await db.accessToken.findUnique({ where: { id: tokenId } });
  if (!token) throw new AppError("not_found", "No such token.");
  if (token.kind === "personal") {
    if (actor.kind !== "user" || actor.userId !== token.userId) throw new AppError("forbidden", "Not your token.");
  } else {
    requirePermission(actor, token.kind === "api_key" ? "admin:api_keys" : "admin:worker_tokens");
  }
  if (token.revokedAt) return { id: token.id, revokedAt: token.revokedAt };
  const revoked = await db.accessToken.update({ where: { id: token.id }, data: { revokedAt: new Date() } });
  await recordAudit(db, { actor, kind: "token_revoked", after: { id: token.id, kind: token.kind, name: token.name } });
  return { id: revoked.id, revokedAt: revoked.revokedAt };
}
