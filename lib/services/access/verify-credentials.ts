import { decoyHash, verifyPassword } from "@/lib/auth/password";
import type { Db } from "@/lib/db/client";
import type { Role } from "@/lib/domain/roles";
import { AppError } from "@/lib/errors";
import { consumeRateLimit, resetRateLimit } from "./consume-rate-limit";
import { type AccountRate, isKnownAddress, rememberAddress, takeAccountToken } from "./sign-in-rate";

/**
 * `perAccount` counts attempts on one account from one address; `perIp` from one address on any
 * account; `account` is the account's own rate from addresses it does not know.
 */
export type LoginLimits = { perAccount: number; perIp: number; windowSeconds: number; account: AccountRate };
export type AuthenticatedUser = { id: string; email: string; name: string; roles: Role[] };

/** The password check; a parameter so that tests can count the hashes computed. */
export type PasswordCheck = (passwordHash: string, password: string) => Promise<boolean>;

function refuse(retryAfterSeconds: number): never {
  throw new AppError("rate_limited", "Too many sign-in attempts; try again later.", { retryAfterSeconds });
}

/**
 * Checks a password sign-in (docs/decisions/053). `input.ip` is the address key (an IPv6 /64).
 * Before any password is hashed: the address's limit (any account), the (account, address) limit,
 * and, unless the account signed in from this address before, a token from the account's bucket,
 * taken atomically, so guesses spread over many addresses and sent in parallel get the account's
 * rate and no more, and a refused guess costs no argon2 work. The owner's usual addresses draw on
 * their own (account, address) limit only: a stranger emptying the bucket cannot keep the owner out.
 * A wrong email and a wrong password get the same answer and cost the same.
 */
export async function verifyCredentials(
  db: Db,
  input: { email: string; password: string; ip: string },
  limits: LoginLimits,
  checkPassword: PasswordCheck = verifyPassword,
): Promise<AuthenticatedUser | null> {
  const email = input.email.trim().toLowerCase();
  const pairKey = `login:account-address:${email}|${input.ip}`;
  const byIp = await consumeRateLimit(db, `login:ip:${input.ip}`, limits.perIp, limits.windowSeconds);
  const byPair = await consumeRateLimit(db, pairKey, limits.perAccount, limits.windowSeconds);
  if (!byIp.allowed || !byPair.allowed) {
    refuse(Math.max(byIp.allowed ? 0 : byIp.retryAfterSeconds, byPair.allowed ? 0 : byPair.retryAfterSeconds));
  }
  if (!(await isKnownAddress(db, email, input.ip))) {
    const token = await takeAccountToken(db, email, limits.account);
    if (!token.allowed) refuse(token.retryAfterSeconds);
  }

  const user = await db.user.findUnique({ where: { email } });
  const valid = await checkPassword(user?.passwordHash ?? (await decoyHash()), input.password);
  if (!user?.active || !user.passwordHash || !valid) return null;

  await resetRateLimit(db, pairKey);
  await rememberAddress(db, user.id, input.ip, limits.account);
  await db.user.update({ where: { id: user.id }, data: { lastSignInAt: new Date() } });
  return { id: user.id, email: user.email, name: user.name, roles: user.roles };
}
