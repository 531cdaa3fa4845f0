import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";

// The HTTP entry (server/main.ts) and Next.js's bundle each load lib/ and server/, so state kept in
// a module exists twice in one server. Per-process state lives in processShared
// (lib/process-shared.ts); this finds any kept elsewhere.

const ROOTS = ["lib", "server"];
const ALLOWED = new Set([
  "lib/process-shared.ts", // the one place that touches globalThis
  "server/main.ts", // the process's entry, loaded once: its shutdown flag is not shared by anything
  // A memo of immutable Intl formatters, in the pure domain (which may not import processShared):
  // a second copy in another bundle costs a few formatters and can never disagree with the first.
  "lib/domain/currency.ts",
]);
const MODULE_STATE: [RegExp, string][] = [
  [/^(export )?(let|var) /m, "a module-level let/var"],
  [/^(export )?const \w+(: [^=]+)? = new (Map|Set|WeakMap|WeakSet)(<[^>]*>)?\(\)/m, "a module-level collection"],
  [/globalThis/, "globalThis"],
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return full === path.join("lib", "db", "generated") ? [] : sources(full);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

describe("per-process state", () => {
  it("is kept only through processShared", () => {
    const found = ROOTS.flatMap(sources)
      .filter((file) => !ALLOWED.has(file.split(path.sep).join("/")))
      .flatMap((file) => {
        const text = readFileSync(file, "utf8");
        return MODULE_STATE.filter(([pattern]) => pattern.test(text)).map(([, what]) => `${file}: ${what}`);
      });
    expect(found).toEqual([]);
  });

  it("is one per process for the parsed environment, even when lib/env.ts is loaded twice", async () => {
    const first = await import("@/lib/env");
    vi.resetModules();
    const second = await import("@/lib/env");
    expect(second).not.toBe(first);
    expect(second.env()).toBe(first.env());
  });
});
