import { decoyHash, verifyPassword } from "@/lib/auth/password";
import type { Db } from "@/lib/db/client";
import type { Role } from "@/lib/domain/roles";
import { AppError } from "@/lib/errors";
import { consumeRateLimit, resetRateLimit } from "./consume-rate-limit";

export type LoginLimits = { perAccount: number; perIp: number; windowSeconds: number };
export type AuthenticatedUser = { id: string; email: string; name: string; roles: Role[] };

/**
 * Checks a password sign-in. Attempts count against both the account and the client address
 * before the password is looked at, so guessing is bounded either way; the answer for a wrong
 * email and a wrong password is the same `null`.
 */
export async function verifyCredentials(
  db: Db,
  input: { email: string; password: string; ip: string },
  limits: LoginLimits,
): Promise<AuthenticatedUser | null> {
  const email = input.email.trim().toLowerCase();
  const accountKey = `login:account:${email}`;
  const byIp = await consumeRateLimit(db, `login:ip:${input.ip}`, limits.perIp, limits.windowSeconds);
  const byAccount = await consumeRateLimit(db, accountKey, limits.perAccount, limits.windowSeconds);
  if (!byIp.allowed || !byAccount.allowed) {
    const retryAfterSeconds = Math.max(
      byIp.allowed ? 0 : byIp.retryAfterSeconds,
      byAccount.allowed ? 0 : byAccount.retryAfterSeconds,
    );
    throw new AppError("rate_limited", "Too many sign-in attempts; try again later.", { retryAfterSeconds });
  }

  const user = await db.user.findUnique({ where: { email } });
  const valid = await verifyPassword(user?.passwordHash ?? (await decoyHash()), input.password);
  if (!user?.active || !user.passwordHash || !valid) return null;

  await resetRateLimit(db, accountKey);
  await db.user.update({ where: { id: user.id }, data: { lastSignInAt: new Date() } });
  return { id: user.id, email: user.email, name: user.name, roles: user.roles };
}
