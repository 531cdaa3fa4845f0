import { randomUUID } from "node:crypto";
import { encode } from "next-auth/jwt";
import type { Role } from "../../lib/domain/roles";

/**
 * The session cookie the console would set after sign-in (as the browser tests mint it), for
 * signed-in requests without a browser. The app still checks the user in the database each time,
 * including the session version (0 for an account whose sessions were never ended).
 */
export async function sessionCookie(
  secret: string,
  user: { id: string; email: string; name: string; roles: Role[]; sessionVersion?: number },
): Promise<string> {
  const token = await encode({
    secret,
    token: {
      sub: user.id,
      uid: user.id,
      email: user.email,
      name: user.name,
      sv: user.sessionVersion ?? 0,
      sid: randomUUID(),
      authTime: Math.floor(Date.now() / 1000),
    },
  });
  return `next-auth.session-token=${token}`;
}
