import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { buildIsStale } from "../../scripts/build-freshness";

/**
 * A production build of its own, so a run never replaces (or waits for) the build `npm start` or
 * the browser tests use. Named like the browser tests' builds, which the ignore rules already cover.
 */
export async function ensureAppBuild(name: string, log: (line: string) => void): Promise<Record<string, string>> {
  const distDir = `.next-e2e-${name}`;
  // Next rewrites the tsconfig it is given; a generated one keeps the shared tsconfig.json untouched.
  const tsconfig = `tsconfig.next-e2e-${name}.json`;
  await writeFile(tsconfig, `${JSON.stringify({ extends: "./tsconfig.json" }, null, 2)}\n`);
  const buildEnv = { NEXT_DIST_DIR: distDir, NEXT_TSCONFIG: tsconfig, NEXT_TELEMETRY_DISABLED: "1" };
  process.env.NEXT_DIST_DIR = distDir;
  if (!(await buildIsStale())) {
    log(`reusing the build in ${distDir}`);
    return buildEnv;
  }
  log(`building the app into ${distDir} (sources changed since the last build)…`);
  const started = Date.now();
  const child = spawn(process.execPath, [path.resolve("node_modules/next/dist/bin/next"), "build"], {
    env: { ...process.env, ...buildEnv, NODE_ENV: "production", SKIP_BUILD_TYPECHECK: "1" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const code = await new Promise<number>((resolve) => child.once("exit", (c) => resolve(c ?? 1)));
  if (code !== 0) throw new Error(`next build exited with ${code}`);
  log(`built in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return buildEnv;
}
