import { randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { link, lstat, mkdir, open, readdir, rm, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { finished } from "node:stream/promises";
import { type AssetStorage, type PendingWrite, StorageRefusal } from "./types";

const SAFE_KEY = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;
// Delivered videos are the producers' property: readable by the app's own user only.
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

/** Files under one directory (default `.data/assets`); staging files live in `.staging/` beside them. */
export function localStorage(root: string): AssetStorage {
  const resolve = (key: string) => {
    if (!SAFE_KEY.test(key) || key.split("/").some((part) => part === "." || part === "..")) {
      throw new StorageRefusal("unsafe_key", `unsafe storage key: ${key.slice(0, 200)}`);
    }
    return path.join(root, key);
  };
  return {
    async begin(key): Promise<PendingWrite> {
      const target = resolve(key);
      const staging = path.join(root, ".staging", `${randomBytes(8).toString("hex")}.part`);
      await mkdir(path.dirname(staging), { recursive: true, mode: DIR_MODE });
      const sink = createWriteStream(staging, { flags: "wx", mode: FILE_MODE });
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
          await mkdir(path.dirname(target), { recursive: true, mode: DIR_MODE });
          // link() fails with EEXIST instead of replacing (rename would replace): whatever is
          // already under the key, published or planted, stays byte for byte as it was.
          try {
            await link(staging, target);
          } catch (error) {
            if ((error as { code?: string }).code === "EEXIST") {
              throw new StorageRefusal("key_taken", `a file already exists under ${key}; it was left untouched`);
            }
            throw error;
          } finally {
            await unlink(staging).catch(() => {});
          }
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
    async open(key) {
      // One handle for the size and the bytes, so a file removed between the two is never half read.
      const handle = await open(resolve(key), "r").catch(() => null);
      if (!handle) return null;
      const { size } = await handle.stat().catch(async (error: unknown) => {
        await handle.close();
        throw error;
      });
      return {
        size,
        stream: (range) => createReadStream("", { fd: handle, autoClose: true, ...(range ?? {}) }),
        close: () => handle.close(),
      };
    },
    async remove(key) {
      await rm(resolve(key), { force: true });
    },
    async listOlderThan(cutoff, limit, after) {
      const found: string[] = [];
      const spine = after ? after.split("/") : [];
      // `onSpine`: the folder is an ancestor of `after`, so only names from after's segment on count.
      const walk = async (dir: string, prefix: string, depth: number, onSpine: boolean): Promise<void> => {
        const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
        entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        for (const entry of entries) {
          if (found.length >= limit) return;
          const boundary = onSpine ? spine[depth] : undefined;
          if (boundary !== undefined && entry.name < boundary) continue;
          // A link is neither followed nor listed: whatever it points at is not this store's.
          if (entry.isSymbolicLink()) continue;
          const key = prefix ? `${prefix}/${entry.name}` : entry.name;
          const alongSpine = boundary !== undefined && entry.name === boundary;
          if (entry.isDirectory()) await walk(path.join(dir, entry.name), key, depth + 1, alongSpine);
          else if (!alongSpine && entry.isFile() && SAFE_KEY.test(key)) {
            const info = await lstat(path.join(dir, entry.name)).catch(() => null);
            if (info?.isFile() && info.mtime < cutoff) found.push(key);
          }
        }
      };
      await walk(root, "", 0, spine.length > 0);
      return found;
    },
  };
}
