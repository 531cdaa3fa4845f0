// Builds the package: ESM into dist/esm, CommonJS into dist/cjs (each with its declarations), and
// marks dist/cjs as CommonJS for Node. Uses the repository's TypeScript; no bundler.
import { spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");

rmSync(join(here, "dist"), { recursive: true, force: true });
for (const project of ["tsconfig.json", "tsconfig.cjs.json"]) {
  const run = spawnSync(process.execPath, [tsc, "-p", join(here, project)], { stdio: "inherit" });
  if (run.status !== 0) process.exit(run.status ?? 1);
}
writeFileSync(join(here, "dist", "cjs", "package.json"), `${JSON.stringify({ type: "commonjs" })}\n`);
