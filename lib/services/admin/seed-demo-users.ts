import type { PrismaClient } from "@/lib/db/client";
import { ROLES } from "@/lib/domain/roles";
import { upsertUser } from "./upsert-user";

/** Documented in README; only ever used in demo mode. */
export const DEMO_PASSWORD = "demo-recovery";
export const demoEmail = (role: string) => `${role}@demo.local`;

/**
 * One user per role, created once: the setup_steps row is claimed in the same transaction,
 * so a restart (or two launchers at once) never re-creates users an admin has since changed.
 * Hashing five passwords runs while the launcher builds the app: on a busy machine that takes longer
 * than a request's transaction may, so this one-time step has a minute.
 */
export async function seedDemoUsers(db: PrismaClient): Promise<boolean> {
  return db.$transaction(
    async (tx) => {
      const claimed = await tx.$executeRaw`
      INSERT INTO setup_steps (name) VALUES ('demo-users') ON CONFLICT (name) DO NOTHING`;
      if (claimed === 0) return false;
      for (const role of ROLES) {
        await upsertUser(tx, {
          email: demoEmail(role),
          name: `Demo ${role}`,
          roles: [role],
          password: DEMO_PASSWORD,
        });
      }
      return true;
    },
    { timeout: 60_000, maxWait: 10_000 },
  );
}
