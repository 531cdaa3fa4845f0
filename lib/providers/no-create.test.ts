import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { simulatorAdapters } from "./registry";

// Design rule 5: no paid create from the recovery path, and no cancel or delete either (a delete loses
// the paid job's evidence, a cancel can forfeit the output). This folder holds only the adapters the
// product runs (the simulator lives under verification/): it may only issue GETs, and only from the two
// modules built for it.
const root = path.dirname(fileURLToPath(import.meta.url));
const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [full] : [];
  });
const relative = (file: string) => path.relative(root, file);

describe("provider adapters cannot create jobs", () => {
  it("send requests only from the GET helper and the downloader", () => {
    const callers = sources(root).filter((file) => /\bfetch\s*\(/.test(readFileSync(file, "utf8")));
    expect(callers.map(relative).sort()).toEqual(["download/download.ts", "http/get-with-retry.ts"]);
  });

  it("never name a write method", () => {
    for (const file of sources(root)) {
      const text = readFileSync(file, "utf8");
      expect(text, relative(file)).not.toMatch(/method:\s*["'`](POST|PUT|PATCH|DELETE)/i);
      expect(text, relative(file)).not.toMatch(/\bhttps?\.request\s*\(/);
    }
  });

  it("expose no create-like, cancel or delete operation on the adapter objects", () => {
    for (const adapter of Object.values(simulatorAdapters("http://127.0.0.1:1"))) {
      const names = Object.keys(adapter).filter((key) =>
        /create|submit|run|post|enqueue|cancel|delete|remove/i.test(key),
      );
      expect(names, adapter.provider).toEqual([]);
    }
  });
});
