import { decoyHash, verifyPassword } from "@/lib/auth/password";
import type { Db } from "@/lib/db/client";
import type { Role } from "@/lib/domain/roles";
import { AppError } from "@/lib/errors";
import { consumeRateLimit, giveBackRateLimit, resetRateLimit } from "./consume-rate-limit";
import {
  type AccountRate,
  giveBackAccountToken,
  isKnownAddress,
  rememberAddress,
  takeAccountToken,
} from "./sign-in-rate";

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
 *
 * Only failures count (docs/decisions/066): every attempt is counted before its hash, which bounds
 * the hashing in flight, and a correct password gives its counts back (the address's, the account's
 * token) and clears the (account, address) count, so an office behind one address cannot lock
 * itself out by signing in at a shift change.
 */
export async function verifyCredentials(
  db: Db,
  input: { email: string; password: string; ip: string },
  limits: LoginLimits,
  checkPassword: PasswordCheck = verifyPassword,
): Promise<AuthenticatedUser | null> {
  const email = input.email.trim().toLowerCase();
  const pairKey = `login:account-address:${email}|${input.ip}`;
  const ipKey = `login:ip:${input.ip}`;
  const byIp = await consumeRateLimit(db, ipKey, limits.perIp, limits.windowSeconds);
  const byPair = await consumeRateLimit(db, pairKey, limits.perAccount, limits.windowSeconds);
  if (!byIp.allowed || !byPair.allowed) {
    refuse(Math.max(byIp.allowed ? 0 : byIp.retryAfterSeconds, byPair.allowed ? 0 : byPair.retryAfterSeconds));
  }
  const tookToken = !(await isKnownAddress(db, email, input.ip));
  if (tookToken) {
    const token = await takeAccountToken(db, email, limits.account);
    if (!token.allowed) refuse(token.retryAfterSeconds);
  }

  const user = await db.user.findUnique({ where: { email } });
  const valid = await checkPassword(user?.passwordHash ?? (await decoyHash()), input.password);
  if (!user?.active || !user.passwordHash || !valid) return null;

  await resetRateLimit(db, pairKey);
  await giveBackRateLimit(db, ipKey, limits.windowSeconds);
  if (tookToken) await giveBackAccountToken(db, email, limits.account);
  await rememberAddress(db, user.id, input.ip, limits.account);
  await db.user.update({ where: { id: user.id }, data: { lastSignInAt: new Date() } });
  return { id: user.id, email: user.email, name: user.name, roles: user.roles };
}
