import { readFile } from "node:fs/promises";
import path from "node:path";

/**
 * The launcher's embedded server as its superuser, for tests and tools that look inside it: the
 * port from its pid file, the generated password from `database-roles.json` (0600, next to the
 * data; docs/decisions/053). No other imports, so a browser test's fixture can load it cheaply.
 */
export async function savedSuperuserUrl(dataDir: string, database = "postgres"): Promise<string> {
  const pidFile = await readFile(path.join(dataDir, "pg", "postmaster.pid"), "utf8");
  const saved = JSON.parse(await readFile(path.join(dataDir, "database-roles.json"), "utf8")) as {
    superuser?: string;
  };
  if (!saved.superuser) throw new Error(`No superuser password in ${dataDir}/database-roles.json`);
  const port = pidFile.split("\n")[3]?.trim();
  return `postgresql://postgres:${encodeURIComponent(saved.superuser)}@127.0.0.1:${port}/${database}`;
}
