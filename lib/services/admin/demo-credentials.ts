import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { ROLES } from "@/lib/domain/roles";
import { demoEmail } from "./seed-demo-users";

/** The name the demo launcher gives the worker token it issues itself (scripts/demo-worker-token.ts). */
export const DEMO_WORKER_TOKEN_NAME = "demo-worker";

/** How an operator gets rid of them, named in every refusal. */
export const DEMO_REMOVAL_HINT =
  "run `npm run demo:remove` against this database (or, as an admin, deactivate those users on Admin → Users " +
  'and revoke the "demo-worker" token on Admin → Worker tokens)';

export type DemoCredentials = { emails: string[]; workerTokenIds: string[] };

const demoEmails = () => ROLES.map((role) => demoEmail(role));

/**
 * Demo accounts whose published password would still sign in (active users with the demo emails)
 * and demo worker tokens that would still tick (not revoked, not expired).
 */
export async function activeDemoCredentials(db: Db, now = new Date()): Promise<DemoCredentials> {
  const [users, tokens] = await Promise.all([
    db.user.findMany({ where: { email: { in: demoEmails() }, active: true }, select: { email: true } }),
    db.accessToken.findMany({
      where: {
        kind: "worker",
        name: DEMO_WORKER_TOKEN_NAME,
        revokedAt: null,
        OR: [{ expiresAt: null }, { expiresAt: { gt: now } }],
      },
      select: { id: true },
    }),
  ]);
  return { emails: users.map((u) => u.email).sort(), workerTokenIds: tokens.map((t) => t.id) };
}

/** The refusal a production start prints, or null when nothing of the demo is left active. */
export async function demoCredentialsRefusal(db: Db): Promise<string | null> {
  const found = await activeDemoCredentials(db);
  if (found.emails.length === 0 && found.workerTokenIds.length === 0) return null;
  const parts = [
    ...(found.emails.length ? [`demo accounts ${found.emails.join(", ")} (published password)`] : []),
    ...(found.workerTokenIds.length ? [`the demo worker token "${DEMO_WORKER_TOKEN_NAME}"`] : []),
  ];
  return `Refusing to start in production: ${parts.join(" and ")} still active. To remove them, ${DEMO_REMOVAL_HINT}.`;
}

/**
 * Deactivates the demo accounts (their password hash is dropped too, so reactivating one never
 * brings the published password back) and revokes the demo worker tokens. History stays: the
 * users keep their decisions and notes. This is the operator at the server's command line, like
 * `npm run user:create`, who already controls the database. Idempotent; the demo seed's setup step
 * stays recorded, so a later demo start on this database does not bring the accounts back.
 */
export async function removeDemoCredentials(db: Db, now = new Date()): Promise<DemoCredentials> {
  return inTransaction(db, async (tx) => {
    const found = await activeDemoCredentials(tx, now);
    await tx.user.updateMany({
      where: { email: { in: demoEmails() } },
      data: { active: false, passwordHash: null },
    });
    await tx.accessToken.updateMany({ where: { id: { in: found.workerTokenIds } }, data: { revokedAt: now } });
    return found;
  });
}
