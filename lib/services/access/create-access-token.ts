import { recordAudit } from "@/lib/audit/writer";
import { generateToken, type TokenKind } from "@/lib/auth/token-secret";
import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import { requirePermission } from "./actor";

/** Only an admin issues producer keys and worker tokens; any user issues personal tokens for themself. */
function authorise(actor: Principal | "cli", kind: TokenKind) {
  if (actor === "cli") return;
  if (kind === "personal") {
    if (actor.kind !== "user") throw new AppError("forbidden", "Personal tokens belong to signed-in users.");
    return;
  }
  requirePermission(actor, kind === "api_key" ? "admin:api_keys" : "admin:worker_tokens");
}

/**
 * Returns the secret exactly once; the database keeps its SHA-256 only. `cli` is the operator
 * at the server's own command line (npm run apikey:create), who already controls the database.
 */
export async function createAccessToken(
  db: Db,
  actor: Principal | "cli",
  input: { kind: TokenKind; name: string; userId?: string; expiresAt?: Date },
) {
  authorise(actor, input.kind);
  const userId =
    input.kind === "personal" ? (actor !== "cli" && actor.kind === "user" ? actor.userId : input.userId) : null;
  if (input.kind === "personal" && !userId) throw new AppError("invalid_request", "A personal token needs its user.");
  const { secret, hash, prefix } = generateToken(input.kind);
  const token = await db.accessToken.create({
    data: { kind: input.kind, name: input.name, tokenHash: hash, prefix, userId, expiresAt: input.expiresAt ?? null },
  });
  if (actor !== "cli") {
    await recordAudit(db, {
      actor,
      kind: "token_created",
      after: { id: token.id, kind: token.kind, name: token.name, prefix },
    });
  }
  return { id: token.id, name: token.name, kind: token.kind, prefix, secret };
}
