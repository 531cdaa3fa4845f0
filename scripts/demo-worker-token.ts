import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { PrismaClient } from "../lib/db/client";
import { authenticateToken } from "../lib/services/access/authenticate-token";
import { createAccessToken } from "../lib/services/access/create-access-token";
import { DEMO_WORKER_TOKEN_NAME } from "../lib/services/admin/demo-credentials";

/** Demo mode runs its own worker loop with a token it issues itself and keeps under DATA_DIR. */
export async function demoWorkerToken(db: PrismaClient, dataDir: string): Promise<string> {
  const file = path.join(dataDir, "worker-token");
  const existing = (await readFile(file, "utf8").catch(() => "")).trim();
  if (existing && (await authenticateToken(db, existing))?.kind === "worker") return existing;
  const token = await createAccessToken(db, "cli", { kind: "worker", name: DEMO_WORKER_TOKEN_NAME });
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, token.secret, { mode: 0o600 });
  return token.secret;
}
