import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

// Decision 003: a case changes, and an audit row is written, only through the case writer. Any
// other file that updates `cases` or inserts into `audit_events` is a second way to do it, where
// the compare-and-set, the timestamps or the conflict count can drift.
const ROOT = join(__dirname, "..", "..");
const SCANNED = ["lib", "app", "scripts", "prisma/seed", "server"];
const WRITER = "lib/services/case/writer";
const SKIPPED = ["lib/db/generated/", "node_modules/"];
const WRITES = [
  /UPDATE\s+"?cases\b/i,
  /INSERT\s+INTO\s+"?audit_events\b/i,
  /\.case\.update(Many)?\b/,
  /auditEvent\.create/,
];

function sourceFiles(dir: string): string[] {
  const absolute = join(ROOT, dir);
  return readdirSync(absolute).flatMap((name) => {
    const path = join(absolute, name);
    const rel = relative(ROOT, path);
    if (SKIPPED.some((skip) => `${rel}/`.startsWith(skip))) return [];
    if (statSync(path).isDirectory()) return sourceFiles(rel);
    return /\.(ts|tsx|mts|js|mjs|sql)$/.test(name) ? [rel] : [];
  });
}

const writers = SCANNED.flatMap(sourceFiles)
  .filter((file) => !file.startsWith(`${WRITER}/`))
  .filter((file) => WRITES.some((pattern) => pattern.test(readFileSync(join(ROOT, file), "utf8"))))
  .sort();

describe("one writer for case changes", () => {
  it("no file but the case writer updates cases or inserts audit rows", () => {
    expect(writers).toEqual([]);
  });

  it("recognises each kind of write, as the writer itself spells them", () => {
    const texts = sourceFiles(WRITER).map((file) => readFileSync(join(ROOT, file), "utf8"));
    const unmatched = WRITES.filter((pattern) => !texts.some((text) => pattern.test(text)));
    expect(unmatched).toEqual([]);
  });
});
