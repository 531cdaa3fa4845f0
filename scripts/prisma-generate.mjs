// Generation never needs Prisma's schema engine, which cannot be downloaded offline; pointing
// the CLI at a harmless executable keeps it from trying.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

if (!existsSync("prisma/schema.prisma")) process.exit(0);
const engine = process.platform === "win32" ? process.execPath : "/bin/true";
const result = spawnSync("npx", ["prisma", "generate"], {
  stdio: "inherit",
  shell: process.platform === "win32",
  env: { PRISMA_SCHEMA_ENGINE_BINARY: engine, PRISMA_HIDE_UPDATE_MESSAGE: "1", ...process.env },
});
process.exit(result.status ?? 1);
