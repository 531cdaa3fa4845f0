import { rmSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";

// Browser tests run against a fresh embedded database and a build of their own, never a configured
// one, and leave nothing behind when Playwright stops them.
delete process.env.DATABASE_URL;
delete process.env.AUTH_SECRET;
const dataDir = process.env.DATA_DIR ?? ".data/e2e";
const distDir = process.env.NEXT_DIST_DIR;
const owned = [dataDir];
if (distDir) {
  const tsconfig = `tsconfig.${distDir.replace(/^\.+/, "")}.json`;
  writeFileSync(tsconfig, `${JSON.stringify({ extends: "./tsconfig.json" }, null, 2)}\n`);
  process.env.NEXT_TSCONFIG = tsconfig;
  owned.push(distDir, tsconfig);
}
await rm(dataDir, { recursive: true, force: true });
process.on("exit", () => {
  for (const path of owned) rmSync(path, { recursive: true, force: true });
});
await import("./start");
