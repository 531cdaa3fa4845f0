import { readdir, stat } from "node:fs/promises";
import path from "node:path";

const SOURCES = [
  "app",
  "components",
  "lib",
  "public",
  "proxy.ts",
  "server/security-headers.json",
  "server/security-policy.ts",
  "next.config.mjs",
  "tailwind.config.ts",
  "package-lock.json",
];

async function newestMtime(target: string): Promise<number> {
  const info = await stat(target).catch(() => null);
  if (!info) return 0;
  if (!info.isDirectory()) return info.mtimeMs;
  const entries = await readdir(target);
  const times = await Promise.all(entries.map((entry) => newestMtime(path.join(target, entry))));
  return Math.max(info.mtimeMs, ...times);
}

/** A production build is reused until a source file is newer than it. */
export async function buildIsStale(): Promise<boolean> {
  const built = await stat(path.join(process.env.NEXT_DIST_DIR ?? ".next", "BUILD_ID")).catch(() => null);
  if (!built) return true;
  const times = await Promise.all(SOURCES.map(newestMtime));
  return Math.max(...times) > built.mtimeMs;
}
