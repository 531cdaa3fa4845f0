import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";

// Service folders depend one way (decision 048): no folder under lib/services imports a folder that
// imports it back, so each can be read, tested and moved with what it needs and nothing that needs
// it. A folder's `writer/` (the one writer of its tables, decision 003) is a unit of its own: every
// folder may use a writer, and a writer imports no service folder but writers.
const ROOT = join(__dirname, "..", "..");
const SERVICES = "lib/services";

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const rel = join(dir, name);
    if (statSync(join(ROOT, rel)).isDirectory()) return sourceFiles(rel);
    return /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [rel] : [];
  });
}

/** The unit a path under lib/services belongs to: its folder, or that folder's writer. */
function unitOf(path: string): string | null {
  const parts = path.split("/");
  if (parts[0] !== "lib" || parts[1] !== "services" || parts.length < 4) return null;
  return parts[3] === "writer" && parts.length > 4 ? `${parts[2]}/writer` : (parts[2] ?? null);
}

/** Every module specifier of a source: imports, re-exports, import() and require(), types included. */
function specifiersOf(source: string): string[] {
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm;
  return [...source.matchAll(pattern)].map((match) => match[1] ?? "");
}

function targetOf(file: string, specifier: string): string | undefined {
  if (specifier.startsWith("@/")) return specifier.slice(2);
  if (specifier.startsWith(".")) return relative(ROOT, join(ROOT, dirname(file), specifier));
  return undefined;
}

/** The unit-to-unit imports of these files, each with the first file and specifier that makes it. */
function unitEdges(sources: Map<string, string>): Map<string, string> {
  const edges = new Map<string, string>();
  for (const [file, source] of sources) {
    const from = unitOf(file);
    if (!from) continue;
    for (const specifier of specifiersOf(source)) {
      const path = targetOf(file, specifier);
      const to = path ? unitOf(path) : null;
      if (!to || to === from) continue;
      const key = `${from} -> ${to}`;
      if (!edges.has(key)) edges.set(key, `${file}: ${specifier}`);
    }
  }
  return edges;
}

/** What breaks the rule: pairs of units importing each other, and writers importing a service folder. */
function violations(sources: Map<string, string>): string[] {
  const edges = unitEdges(sources);
  const found: string[] = [];
  for (const [key, where] of edges) {
    const [from = "", to = ""] = key.split(" -> ");
    const back = edges.get(`${to} -> ${from}`);
    if (back && from < to) found.push(`${from} <-> ${to} (${where}; ${back})`);
    if (from.endsWith("/writer") && !to.endsWith("/writer")) found.push(`writer ${from} imports ${to} (${where})`);
  }
  return found.sort();
}

const tree = new Map(sourceFiles(SERVICES).map((file) => [file, readFileSync(join(ROOT, file), "utf8")]));

describe("service folders import one way", () => {
  it("no folder imports a folder that imports it back, and writers import only writers", () => {
    expect(violations(tree)).toEqual([]);
  });

  it("finds a folder importing back, in each spelling, and a writer reaching into a folder", () => {
    const planted = new Map([
      ["lib/services/alpha/use.ts", 'import { b } from "../beta/thing";'],
      ["lib/services/beta/thing.ts", 'import type { A } from "@/lib/services/alpha/use";\nexport const b = 1;'],
      ["lib/services/gamma/x.ts", 'export { c } from "../delta/y";'],
      ["lib/services/delta/y.ts", 'const m = await import("@/lib/services/gamma/x");'],
      ["lib/services/epsilon/writer/w.ts", 'import { d } from "../../delta/y";'],
    ]);
    expect(violations(planted)).toEqual([
      expect.stringMatching(/^alpha <-> beta /),
      expect.stringMatching(/^delta <-> gamma /),
      expect.stringMatching(/^writer epsilon\/writer imports delta /),
    ]);
    // A folder using another's writer, which imports nothing back, is the allowed shape.
    const allowed = new Map([
      ["lib/services/alpha/use.ts", 'import { w } from "../beta/writer/w";'],
      ["lib/services/beta/thing.ts", 'import { a } from "../alpha/use";'],
      ["lib/services/beta/writer/w.ts", 'import type { Db } from "@/lib/db/client";'],
    ]);
    expect(violations(allowed)).toEqual([]);
  });
});
