import { setTimeout as sleep } from "node:timers/promises";
import { decoyHash, verifyPassword } from "@/lib/auth/password";
import type { Db } from "@/lib/db/client";
import type { Role } from "@/lib/domain/roles";
import { signInDelayMs } from "@/lib/domain/sign-in-delay";
import { AppError } from "@/lib/errors";
import { consumeRateLimit, countInCurrentWindow, resetRateLimit } from "./consume-rate-limit";

/** `perAccount` counts attempts on one account from one address; `perIp` from one address on any account. */
export type LoginLimits = { perAccount: number; perIp: number; windowSeconds: number };
export type AuthenticatedUser = { id: string; email: string; name: string; roles: Role[] };

/**
 * Checks a password sign-in. Attempts count against the client address and against the pair
 * (account, address) before the password is looked at, so one address can neither guess widely nor
 * deeply. There is no lock on the account itself: a stranger failing from elsewhere only slows the
 * account's answers (`signInDelayMs` of its failures in the window), so the owner, from their own
 * address, can still sign in. The answer for a wrong email and a wrong password is the same `null`.
 */
export async function verifyCredentials(
  db: Db,
  input: { email: string; password: string; ip: string },
  limits: LoginLimits,
  pause: (ms: number) => Promise<unknown> = sleep,
): Promise<AuthenticatedUser | null> {
  const email = input.email.trim().toLowerCase();
  const pairKey = `login:account-address:${email}|${input.ip}`;
  const failuresKey = `login:failures:${email}`;
  const byIp = await consumeRateLimit(db, `login:ip:${input.ip}`, limits.perIp, limits.windowSeconds);
  const byPair = await consumeRateLimit(db, pairKey, limits.perAccount, limits.windowSeconds);
  if (!byIp.allowed || !byPair.allowed) {
    const retryAfterSeconds = Math.max(
      byIp.allowed ? 0 : byIp.retryAfterSeconds,
      byPair.allowed ? 0 : byPair.retryAfterSeconds,
    );
    throw new AppError("rate_limited", "Too many sign-in attempts; try again later.", { retryAfterSeconds });
  }

  const delay = signInDelayMs(await countInCurrentWindow(db, failuresKey, limits.windowSeconds));
  if (delay > 0) await pause(delay);
  const user = await db.user.findUnique({ where: { email } });
  const valid = await verifyPassword(user?.passwordHash ?? (await decoyHash()), input.password);
  if (!user?.active || !user.passwordHash || !valid) {
    // Unknown emails count too, so the delay does not tell which accounts exist.
    await consumeRateLimit(db, failuresKey, Number.MAX_SAFE_INTEGER, limits.windowSeconds);
    return null;
  }

  await resetRateLimit(db, pairKey);
  await resetRateLimit(db, failuresKey);
  await db.user.update({ where: { id: user.id }, data: { lastSignInAt: new Date() } });
  return { id: user.id, email: user.email, name: user.name, roles: user.roles };
}
