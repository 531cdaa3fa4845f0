import { createHash, randomBytes } from "node:crypto";

const PREFIX = { api_key: "vrk", worker: "vrw", personal: "vrp" } as const;
export type TokenKind = keyof typeof PREFIX;

/** Secrets are random and long, so a fast hash is enough; only the hash is ever stored. */
export function hashToken(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

export function generateToken(kind: TokenKind): { secret: string; hash: string; prefix: string } {
  const secret = `${PREFIX[kind]}_${randomBytes(32).toString("base64url")}`;
  return { secret, hash: hashToken(secret), prefix: secret.slice(0, 12) };
}

export function tokenKindOf(secret: string): TokenKind | null {
  const entry = Object.entries(PREFIX).find(([, prefix]) => secret.startsWith(`${prefix}_`));
  return entry ? (entry[0] as TokenKind) : null;
}

/** The secret of an `Authorization: Bearer <secret>` header, or null for any other header. */
export function bearerSecret(authorization: string | null): string | null {
  return /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1] ?? null;
}
