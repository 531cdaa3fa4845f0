import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { finished } from "node:stream/promises";
import type { AssetStorage, PendingWrite } from "./types";

const SAFE_KEY = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

/** Files under one directory (default `.data/assets`); staging files live in `.staging/` beside them. */
export function localStorage(root: string): AssetStorage {
  const resolve = (key: string) => {
    if (!SAFE_KEY.test(key) || key.split("/").includes("..")) throw new Error(`unsafe storage key: ${key}`);
    return path.join(root, key);
  };
  return {
    async begin(key): Promise<PendingWrite> {
      const target = resolve(key);
      const staging = path.join(root, ".staging", `${randomBytes(8).toString("hex")}.part`);
      await mkdir(path.dirname(staging), { recursive: true });
      const sink = createWriteStream(staging, { flags: "wx" });
      // Kept, not thrown: a writer that is destroyed mid-copy must fail its commit, not the process.
      let failure: Error | null = null;
      sink.on("error", (error) => {
        failure ??= error;
      });
      let settled = false;
      return {
        sink,
        async commit() {
          if (!sink.writableFinished) await finished(sink);
          if (failure) throw failure;
          await mkdir(path.dirname(target), { recursive: true });
          await rename(staging, target);
          settled = true;
          return { key, size: (await stat(target)).size };
        },
        async abort() {
          if (settled) return;
          settled = true;
          sink.destroy();
          await rm(staging, { force: true });
        },
      };
    },
    async exists(key) {
      return (await stat(resolve(key)).catch(() => null)) !== null;
    },
    async size(key) {
      return (await stat(resolve(key)).catch(() => null))?.size ?? null;
    },
  };
}
