import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { relaxedCommit } from "./consume-rate-limit";

/**
 * An account's sign-in rate (docs/decisions/053): a bucket of `burst` tokens, one added back every
 * `refillSeconds`. Each sign-in from an address the account does not know takes one.
 */
export type AccountRate = { burst: number; refillSeconds: number };

/** How long an address stays the owner's after its last successful sign-in. */
export const KNOWN_ADDRESS_DAYS = 90;

const refilled = (rate: AccountRate) => Prisma.sql`LEAST(${rate.burst}::float8,
  sign_in_buckets.tokens
    + GREATEST(0, EXTRACT(EPOCH FROM now() - sign_in_buckets.refilled_at)::float8) / ${rate.refillSeconds}::float8)`;

/**
 * Takes one token from the account's bucket, or refuses. One statement: the upsert locks the row,
 * so parallel attempts from any number of addresses take turns and never both spend the last
 * token. The caller hashes a password only after this said yes. `refilled_at` never goes back (a
 * statement that waited for the lock may have started before the previous one).
 */
export async function takeAccountToken(
  db: Db,
  account: string,
  rate: AccountRate,
): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }> {
  const taken = await sqlRows<{ tokens: number }>(
    db,
    Prisma.sql`
    WITH ${relaxedCommit(db)}
    INSERT INTO sign_in_buckets (account, tokens, refilled_at)
      SELECT ${account}, ${rate.burst - 1}::float8, now() FROM relaxed
    ON CONFLICT (account) DO UPDATE SET
      tokens = ${refilled(rate)} - 1,
      refilled_at = GREATEST(sign_in_buckets.refilled_at, now())
    WHERE ${refilled(rate)} >= 1
    RETURNING tokens`,
  );
  if (taken.length > 0) return { allowed: true };
  const rows = await sqlRows<{ wait: number }>(
    db,
    Prisma.sql`SELECT GREATEST(1, CEIL((1 - ${refilled(rate)}) * ${rate.refillSeconds}::float8))::int AS wait
      FROM sign_in_buckets WHERE account = ${account}`,
  );
  return { allowed: false, retryAfterSeconds: rows[0]?.wait ?? rate.refillSeconds };
}

/**
 * Gives back the token a sign-in took once its password proved right: only failures spend the
 * account's rate (docs/decisions/066). Never above `burst`.
 */
export async function giveBackAccountToken(db: Db, account: string, rate: AccountRate): Promise<void> {
  await db.$executeRaw`
    UPDATE sign_in_buckets SET tokens = LEAST(${rate.burst}::float8, tokens + 1) WHERE account = ${account}`;
}

/** Whether the account signed in with its password from this address within KNOWN_ADDRESS_DAYS. */
export async function isKnownAddress(db: Db, email: string, address: string): Promise<boolean> {
  const rows = await sqlRows<{ known: number }>(
    db,
    Prisma.sql`
    SELECT 1 AS known FROM sign_in_addresses a JOIN users u ON u.id = a.user_id
     WHERE u.email = ${email} AND a.address = ${address}
       AND a.last_seen_at > now() - make_interval(days => ${KNOWN_ADDRESS_DAYS}::int)`,
  );
  return rows.length > 0;
}

/**
 * After a correct password: this address is the account's for KNOWN_ADDRESS_DAYS more. Rows past
 * that, and buckets full again (the same as none), are pruned here, so both tables stay as small
 * as the accounts and addresses in use (DESIGN rule 20).
 */
export async function rememberAddress(db: Db, userId: string, address: string, rate: AccountRate): Promise<void> {
  await db.$executeRaw`
    INSERT INTO sign_in_addresses (user_id, address, last_seen_at) VALUES (${userId}::uuid, ${address}, now())
    ON CONFLICT (user_id, address) DO UPDATE SET last_seen_at = now()`;
  await db.$executeRaw`
    DELETE FROM sign_in_addresses WHERE last_seen_at <= now() - make_interval(days => ${KNOWN_ADDRESS_DAYS}::int)`;
  await db.$executeRaw`
    DELETE FROM sign_in_buckets
     WHERE refilled_at <= now() - make_interval(secs => ${rate.burst * rate.refillSeconds}::float8)`;
}
