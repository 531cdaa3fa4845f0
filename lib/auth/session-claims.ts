import { randomUUID } from "node:crypto";
import { z } from "zod";

/**
 * What a session cookie must carry to be honoured: the user, the session version the user had at
 * sign-in, the session's own id (so a signed-out copy can be refused) and when the sign-in was.
 * A cookie missing any of them (minted before sessions became revocable, or forged) is nobody.
 */
export const sessionClaimsSchema = z.object({
  uid: z.uuid(),
  sv: z.number().int().min(0),
  sid: z.uuid(),
  authTime: z.number().int().min(0),
});
export type SessionClaims = z.infer<typeof sessionClaimsSchema>;

export function parseSessionClaims(token: unknown): SessionClaims | null {
  const parsed = sessionClaimsSchema.safeParse(token);
  return parsed.success ? parsed.data : null;
}

/** The claims of a session that starts now, for a user at their current session version. */
export function newSessionClaims(user: { id: string; sessionVersion: number }): SessionClaims {
  return { uid: user.id, sv: user.sessionVersion, sid: randomUUID(), authTime: Math.floor(Date.now() / 1000) };
}
