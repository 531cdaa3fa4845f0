import { db } from "@/lib/db/client";
import { EnvError, env } from "@/lib/env";
import { demoCredentialsRefusal } from "@/lib/services/admin/demo-credentials";

/**
 * Runs before the server listens, however it was started (the launcher, a container, a process
 * manager): a configuration error is printed as one line, and in production the published demo
 * accounts and the demo worker token must be gone (docs/decisions/017). These lines go to stderr
 * as plain text, not through the logger: the logger's own settings come from the environment that
 * may be the thing refused, and the person starting the server reads them (docs/decisions/021).
 */
export async function refuseUnsafeStart(): Promise<void> {
  try {
    if (env().demo) return;
    const refusal = await demoCredentialsRefusal(db());
    if (!refusal) return;
    console.error(`[server] ${refusal}`);
  } catch (error) {
    if (!(error instanceof EnvError)) throw error;
    console.error(`[server] ${error.message}`);
  }
  await db()
    .$disconnect()
    .catch(() => {});
  process.exit(1);
}
