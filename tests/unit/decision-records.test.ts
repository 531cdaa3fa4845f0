import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";

// Every decision record opens the same way (a title, `Date:`, `Status:`), so a reader can tell at a
// glance when it was decided and whether it still holds; a record that replaces part of another
// says so on both sides, with links that lead somewhere.

const DIR = path.resolve("docs/decisions");
// A record says what was decided and why in a page or so; past this it is a design document, and a
// changed decision belongs in a new record that supersedes it (docs/decisions/README.md).
const LONG_RECORD_CHARS = 4000;
const STATUSES = ["accepted", "superseded", "deprecated"] as const;

type Relation = { kind: "superseded_by" | "superseded_in_part_by" | "supersedes"; line: string; targets: string[] };
type DecisionRecord = { file: string; number: string; lines: string[]; relations: Relation[] };

const files = readdirSync(DIR)
  .filter((name) => /^\d{3}-.+\.md$/.test(name))
  .sort();

/** The records a header line links to, as `[016](016-revocable-sessions….md)`. */
function linkedFiles(line: string): string[] {
  return [...line.matchAll(/\[(\d{3})\]\(([^)]+)\)/g)].map(([, , target]) => target ?? "");
}

function relationOf(line: string): Relation | null {
  if (line.startsWith("Superseded by ")) return { kind: "superseded_by", line, targets: linkedFiles(line) };
  if (line.startsWith("Superseded in part by "))
    return { kind: "superseded_in_part_by", line, targets: linkedFiles(line) };
  if (line.startsWith("Supersedes")) return { kind: "supersedes", line, targets: linkedFiles(line) };
  return null;
}

function read(file: string): DecisionRecord {
  const lines = readFileSync(path.join(DIR, file), "utf8").split("\n");
  // The header is everything before the first section heading.
  const end = lines.findIndex((line, i) => i > 0 && line.startsWith("#"));
  const header = lines.slice(1, end < 0 ? undefined : end);
  const relations = header.flatMap((line) => relationOf(line) ?? []);
  return { file, number: file.slice(0, 3), lines, relations };
}

const records = files.map(read);

function warnIfLong(file: string, chars: number): void {
  if (chars > LONG_RECORD_CHARS)
    console.warn(
      `${file} is ${chars} characters; keep a record short (~${LONG_RECORD_CHARS}) and supersede it to change it`,
    );
}
const headerLines = (record: DecisionRecord) => record.lines.filter((line) => line.trim() !== "").slice(0, 3);
const statusOf = (record: DecisionRecord) => headerLines(record)[2]?.replace(/^Status: /, "");
const pointsAt = (record: DecisionRecord, kinds: Relation["kind"][], file: string) =>
  record.relations.some((relation) => kinds.includes(relation.kind) && relation.targets.includes(file));

describe("decision records", () => {
  it("are numbered once each, from 001 up without gaps", () => {
    expect(records.length).toBeGreaterThanOrEqual(19);
    expect(records.map((record) => record.number)).toEqual(records.map((_, i) => String(i + 1).padStart(3, "0")));
  });

  it.each(files)("%s opens with its title, a Date and a valid Status", (file) => {
    const record = read(file);
    const [title, date, status] = headerLines(record);
    expect(title).toMatch(new RegExp(`^# ${record.number} · \\S`));
    expect(date).toMatch(/^Date: \d{4}-\d{2}-\d{2}$/);
    expect(Number.isNaN(Date.parse(date?.slice(6) ?? ""))).toBe(false);
    expect(status).toMatch(new RegExp(`^Status: (${STATUSES.join("|")})$`));
  });

  it.each(files)("%s links only to records that exist", (file) => {
    for (const relation of read(file).relations) {
      expect(relation.targets.length, `${file}: "${relation.line}" names no record by link`).toBeGreaterThan(0);
      for (const [, shown, target] of relation.line.matchAll(/\[(\d{3})\]\(([^)]+)\)/g))
        expect(target?.startsWith(`${shown}-`), `${file}: link text ${shown} leads to ${target}`).toBe(true);
      for (const target of relation.targets) {
        expect(existsSync(path.join(DIR, target)), `${file} -> ${target}`).toBe(true);
        expect(target, `${file} links to itself`).not.toBe(file);
      }
    }
  });

  it("say superseded exactly when a later record replaces them whole", () => {
    for (const record of records) {
      const whole = record.relations.some((relation) => relation.kind === "superseded_by");
      expect(statusOf(record) === "superseded", record.file).toBe(whole);
    }
  });

  it("say so on both sides: each superseded part is claimed by the later record, and the other way round", () => {
    for (const record of records)
      for (const relation of record.relations)
        for (const target of relation.targets) {
          const other = records.find((candidate) => candidate.file === target);
          if (!other) throw new Error(`${record.file} -> ${target}: no such record`);
          if (relation.kind === "supersedes") {
            expect(
              pointsAt(other, ["superseded_by", "superseded_in_part_by"], record.file),
              `${target} names ${record.file}`,
            ).toBe(true);
            expect(other.number < record.number, `${record.file} supersedes a later record`).toBe(true);
          } else {
            expect(pointsAt(other, ["supersedes"], record.file), `${target} names ${record.file}`).toBe(true);
          }
        }
  });

  it("warn, without failing, about a record past ~4k characters", () => {
    for (const record of records) warnIfLong(record.file, record.lines.join("\n").length);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      warnIfLong("probe.md", LONG_RECORD_CHARS + 1);
      warnIfLong("short.md", LONG_RECORD_CHARS);
      expect(warn.mock.calls.map(([message]) => String(message).split(" ")[0])).toEqual(["probe.md"]);
    } finally {
      warn.mockRestore();
    }
  });

  it("name, when one supersedes another, a record that exists", () => {
    for (const record of records)
      for (const relation of record.relations.filter((r) => r.kind === "supersedes"))
        for (const target of relation.targets)
          expect(files, `${record.file} supersedes ${target}, which is not a record`).toContain(target);
  });
});
