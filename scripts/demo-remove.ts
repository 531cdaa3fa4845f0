import { rm } from "node:fs/promises";
import path from "node:path";
import { createPrismaClient } from "../lib/db/client";
import { env } from "../lib/env";
import { removeDemoCredentials } from "../lib/services/admin/demo-credentials";
import { withLocalDatabase } from "./local-database";

// npm run demo:remove: before running production on data that once ran the demo, deactivate the
// demo accounts (published password) and revoke the demo worker token. Safe to run again.
await withLocalDatabase(async (url) => {
  const db = createPrismaClient(url, 1);
  try {
    const removed = await removeDemoCredentials(db);
    console.log(
      removed.emails.length
        ? `Deactivated demo accounts: ${removed.emails.join(", ")}`
        : "No active demo accounts were left.",
    );
    console.log(`Revoked demo worker tokens: ${removed.workerTokenIds.length}`);
  } finally {
    await db.$disconnect();
  }
});
// The launcher's copy of the demo worker token is useless now; do not leave it lying around.
await rm(path.join(env().DATA_DIR, "worker-token"), { force: true });
