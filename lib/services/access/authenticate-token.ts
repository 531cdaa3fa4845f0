import { hashToken, type TokenKind, tokenKindOf } from "@/lib/auth/token-secret";
import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import type { Principal } from "@/lib/domain/principal";
import { scopeFromColumn } from "@/lib/domain/producer-scope";
import { isRole } from "@/lib/domain/roles";
import { countInWindow, type RateLimitResult, relaxedCommit } from "./consume-rate-limit";
import { RATE_KEY_PREFIX } from "./rate-limit-key";

/** Last-used times are recorded at most this often, so a busy key does not write on every request. */
const LAST_USED_RESOLUTION_SECONDS = 60;

/** Count the request against its principal's window, but only for a token of this kind. */
export type CountRequest = { tokenKind: TokenKind; limit: number; windowSeconds: number };

export type Admission = { principal: Principal | null; rateLimit: RateLimitResult | null };

type Row = {
  id: string;
  kind: TokenKind;
  name: string;
  user_id: string | null;
  email: string | null;
  user_name: string | null;
  roles: string[] | null;
  producer_scope: string[] | null;
  count: number | null;
  retry_after: number | null;
};

/**
 * Resolves a bearer secret to its principal: a producer key, a worker token, or a personal token
 * acting as its (active) user with that user's current roles. Revoked or expired tokens are nobody.
 */
export async function authenticateToken(db: Db, secret: string, workerId?: string): Promise<Principal | null> {
  return (await admitToken(db, secret, null, workerId)).principal;
}

/**
 * The API's hottest path in one statement: resolve the token, note when it was last used, and
 * count the request in its principal's rate-limit window (the counter row shared with
 * `consumeRateLimit`, keyed as `rateLimitKey` keys it). Nobody is counted when the
 * token resolves to nobody or is of another kind than `count.tokenKind`.
 */
export async function admitToken(
  db: Db,
  secret: string,
  count: CountRequest | null,
  workerId?: string,
): Promise<Admission> {
  const kind = tokenKindOf(secret);
  if (!kind || secret.length > 200) return { principal: null, rateLimit: null };
  const rows = await sqlRows<Row>(
    db,
    Prisma.sql`
    WITH ${relaxedCommit(db)},
    token AS (
      SELECT t.id, t.kind, t.name, t.user_id, t.last_used_at, u.email, u.name AS user_name,
             u.roles::text[] AS roles, u.producer_scope
      FROM access_tokens t LEFT JOIN users u ON u.id = t.user_id
      WHERE t.token_hash = ${hashToken(secret)} AND t.kind = ${kind}::"TokenKind"
        AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())
        AND (t.kind <> 'personal' OR u.active IS TRUE)
    ),
    -- Runs whether or not it is read, like every data-modifying WITH.
    touched AS (
      UPDATE access_tokens a SET last_used_at = now() FROM token, relaxed
      WHERE a.id = token.id
        AND (token.last_used_at IS NULL
             OR token.last_used_at < now() - make_interval(secs => ${LAST_USED_RESOLUTION_SECONDS}::int))
    ),
    bucket AS (
      INSERT INTO rate_limit_buckets (key, window_start, count)
      SELECT CASE token.kind WHEN 'api_key' THEN ${RATE_KEY_PREFIX.api_key}::text || token.id
                             WHEN 'worker' THEN ${RATE_KEY_PREFIX.worker}::text || token.id
                             ELSE ${RATE_KEY_PREFIX.user}::text || token.user_id END, now(), 1
      FROM token, relaxed WHERE token.kind::text = ${count?.tokenKind ?? null}::text
      ${countInWindow(count?.windowSeconds ?? 60)}
    )
    SELECT token.id, token.kind::text AS kind, token.name, token.user_id, token.email, token.user_name,
           token.roles, token.producer_scope, bucket.count, bucket.retry_after
    FROM token LEFT JOIN bucket ON true`,
  );
  const row = rows[0];
  if (!row) return { principal: null, rateLimit: null };
  const rateLimit =
    count && row.count !== null && row.retry_after !== null
      ? { allowed: row.count <= count.limit, count: row.count, retryAfterSeconds: row.retry_after }
      : null;
  return { principal: principalOf(row, workerId), rateLimit };
}

function principalOf(row: Row, workerId: string | undefined): Principal | null {
  switch (row.kind) {
    case "api_key":
      return { kind: "api_key", apiKeyId: row.id, name: row.name };
    case "worker":
      return { kind: "worker", tokenId: row.id, name: row.name, workerId: workerId ?? row.name };
    case "personal":
      if (!row.user_id || row.email === null || row.user_name === null) return null;
      return {
        kind: "user",
        userId: row.user_id,
        email: row.email,
        name: row.user_name,
        roles: (row.roles ?? []).filter(isRole),
        producers: scopeFromColumn(row.producer_scope),
      };
  }
}
