import { parseSessionClaims } from "@/lib/auth/session-claims";
import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import type { Principal } from "@/lib/domain/principal";
import { scopeFromColumn } from "@/lib/domain/producer-scope";
import { isRole } from "@/lib/domain/roles";

export type SessionUser = Extract<Principal, { kind: "user" }>;

/**
 * The one check every session-authenticated request passes (decision 016): the cookie's user is
 * active, still at the session version the cookie was issued with (a password reset, role change,
 * deactivation or "sign out everywhere" bumps it), this session was not signed out, and it is not
 * older than the absolute limit. One statement: two primary-key lookups.
 */
export async function resolveSession(db: Db, token: unknown, maxAgeSeconds: number): Promise<SessionUser | null> {
  const claims = parseSessionClaims(token);
  if (!claims) return null;
  // Sessions end a fixed time after sign-in, however active they were.
  if (Math.floor(Date.now() / 1000) - claims.authTime > maxAgeSeconds) return null;
  const rows = await sqlRows<{ id: string; email: string; name: string; roles: string[]; producer_scope: string[] }>(
    db,
    Prisma.sql`
    SELECT u.id::text AS id, u.email, u.name, u.roles::text[] AS roles, u.producer_scope
    FROM users u
    WHERE u.id = ${claims.uid}::uuid AND u.active AND u.session_version = ${claims.sv}
      AND NOT EXISTS (SELECT 1 FROM ended_sessions e WHERE e.session_id = ${claims.sid}::uuid)`,
  );
  const user = rows[0];
  if (!user) return null;
  return {
    kind: "user",
    userId: user.id,
    email: user.email,
    name: user.name,
    roles: user.roles.filter(isRole),
    producers: scopeFromColumn(user.producer_scope),
  };
}
