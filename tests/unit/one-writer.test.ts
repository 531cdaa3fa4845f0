import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

// Decisions 003 and 047: each of these tables is written from one folder only, its writer. A file
// elsewhere that inserts, updates or deletes its rows is a second way to do it, where the
// compare-and-set, the timestamps, the audit rows or the ledger's balance can drift. Each writer is
// one constant, so moving a writer (the audit writer to lib/audit, say) is one line here.
const ROOT = join(__dirname, "..", "..");
const SCANNED = ["lib", "app", "scripts", "prisma/seed", "server"];
const SKIPPED = ["lib/db/generated/", "node_modules/"];

const CASE_WRITER = "lib/services/case/writer";
const AUDIT_WRITER = "lib/audit";
const MONEY_WRITER = "lib/services/hold/writer";
const ACTION_WRITER = "lib/services/claim";
const JOB_CLAIM_WRITER = "lib/services/job-claim";
const PAUSE_WRITER = "lib/services/scope-pause/writer";

type Table = { writer: string; model: string; relations: string[] };

/** Table -> its one writer, with the Prisma model and the relation fields a nested write would name. */
const WRITERS: Record<string, Table> = {
  cases: { writer: CASE_WRITER, model: "case", relations: ["case", "assigned", "currentFor"] },
  audit_events: { writer: AUDIT_WRITER, model: "auditEvent", relations: [] },
  holds: { writer: MONEY_WRITER, model: "hold", relations: ["hold", "holds"] },
  ledger_entries: { writer: MONEY_WRITER, model: "ledgerEntry", relations: ["entries"] },
  recovery_actions: { writer: ACTION_WRITER, model: "recoveryAction", relations: ["action", "actions"] },
  job_references: { writer: JOB_CLAIM_WRITER, model: "jobReference", relations: [] },
  job_claim_conflicts: { writer: JOB_CLAIM_WRITER, model: "jobClaimConflict", relations: [] },
  // Decision 070: a person's pause switch and the unknown-outcome breaker open and close pauses here.
  pauses: { writer: PAUSE_WRITER, model: "pause", relations: [] },
};

const PRISMA_WRITES =
  "create|createMany|createManyAndReturn|update|updateMany|updateManyAndReturn|upsert|delete|deleteMany";

function patternsOf(table: string, spec: Table): RegExp[] {
  const name = `(?:"?public"?\\.)?"?${table}"?(?![\\w])`;
  return [
    new RegExp(
      `\\b(?:INSERT\\s+INTO|MERGE\\s+INTO|DELETE\\s+FROM|TRUNCATE(?:\\s+TABLE)?|COPY)\\s+(?:ONLY\\s+)?${name}`,
      "i",
    ),
    new RegExp(`(?<!FOR\\s+|DO\\s+)\\bUPDATE\\s+(?:ONLY\\s+)?${name}`, "i"),
    new RegExp(`\\.${spec.model}\\s*\\.\\s*(?:${PRISMA_WRITES})\\b`),
    new RegExp(`\\[\\s*["'\`]${spec.model}["'\`]\\s*\\]\\s*\\.\\s*(?:${PRISMA_WRITES})\\b`),
    ...(spec.relations.length > 0
      ? [new RegExp(`\\b(?:${spec.relations.join("|")})\\s*:\\s*\\{\\s*(?:${PRISMA_WRITES}|connectOrCreate)\\s*:`)]
      : []),
  ];
}

/** The tables of the map that `text` writes, in any spelling the scanner knows. */
function tablesWritten(text: string): string[] {
  return Object.entries(WRITERS)
    .filter(([table, spec]) => patternsOf(table, spec).some((pattern) => pattern.test(text)))
    .map(([table]) => table);
}

/** Every write of `files` (path -> text) to a table by a file outside that table's writer, as "table: file". */
function strayWrites(files: Record<string, string>): string[] {
  return Object.entries(files)
    .flatMap(([file, text]) =>
      tablesWritten(text)
        .filter((table) => !file.startsWith(`${WRITERS[table]?.writer}/`))
        .map((table) => `${table}: ${file}`),
    )
    .sort();
}

function sourceFiles(dir: string): string[] {
  const absolute = join(ROOT, dir);
  return readdirSync(absolute).flatMap((name) => {
    const path = join(absolute, name);
    const rel = relative(ROOT, path);
    if (SKIPPED.some((skip) => `${rel}/`.startsWith(skip))) return [];
    if (statSync(path).isDirectory()) return sourceFiles(rel);
    return /\.(ts|tsx|mts|js|mjs|sql)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [rel] : [];
  });
}

const repository = Object.fromEntries(
  SCANNED.flatMap(sourceFiles).map((file) => [file, readFileSync(join(ROOT, file), "utf8")]),
);

describe("one writer per table", () => {
  it("no file outside a table's writer inserts, updates or deletes its rows", () => {
    expect(strayWrites(repository)).toEqual([]);
  });

  it("each writer writes its tables, as the scanner spells them", () => {
    const writerText = (dir: string) => sourceFiles(dir).map((file) => repository[file] ?? "");
    const unseen = Object.entries(WRITERS)
      .filter(
        ([table]) => !writerText(WRITERS[table]?.writer ?? "").some((text) => tablesWritten(text).includes(table)),
      )
      .map(([table]) => table);
    expect(unseen).toEqual([]);
  });

  describe("a planted write outside the writer is found", () => {
    const plants = Object.entries(WRITERS).flatMap(([table, spec]) => [
      [table, `await tx.$executeRaw\`INSERT INTO ${table} (id) VALUES (1)\``],
      [table, `Prisma.sql\`\n  insert into "${table}" (id) select 1\``],
      [table, `WITH x AS (UPDATE ${table} t SET id = id RETURNING t.id) SELECT 1`],
      [table, `await db.$executeRawUnsafe("update public.${table} set id = id")`],
      [table, `sql\`DELETE FROM ${table} WHERE true\``],
      [table, `await tx.${spec.model}.create({ data })`],
      [table, `await tx.${spec.model}.updateMany({ where, data })`],
      [table, `await db.${spec.model}\n  .upsert({ where, create, update })`],
      [table, `await tx.${spec.model}.deleteMany({})`],
      [table, `await tx["${spec.model}"].update({ where, data })`],
      ...spec.relations.map((relation) => [
        table,
        `await tx.parent.create({ data: { ${relation}: { create: { id } } } })`,
      ]),
    ]);
    it.each(plants)("%s: %s", (table, text) => {
      expect(strayWrites({ "lib/services/planted/elsewhere.ts": text })).toEqual([
        `${table}: lib/services/planted/elsewhere.ts`,
      ]);
    });

    it("the same text inside the table's writer is allowed", () => {
      for (const [table, spec] of Object.entries(WRITERS)) {
        expect(strayWrites({ [`${spec.writer}/planted.ts`]: `INSERT INTO ${table} (id) VALUES (1)` })).toEqual([]);
      }
    });

    it("reads, row locks and upserts of other tables are not writes", () => {
      const reads = [
        "SELECT * FROM holds h JOIN ledger_entries l ON l.hold_ref = h.id",
        "SELECT id FROM cases WHERE id = $1 FOR UPDATE",
        "SELECT 1 FROM recovery_actions FOR UPDATE SKIP LOCKED",
        "INSERT INTO send_permits (id) VALUES (1) ON CONFLICT (id) DO UPDATE SET token = 2",
        "await tx.hold.findUnique({ where })",
        "await tx.case.findMany({ where: { holds: { some: { status: 'held' } } } })",
        "await tx.holdPolicy.update({ where, data })",
      ];
      expect(
        strayWrites(Object.fromEntries(reads.map((text, i) => [`lib/services/planted/read-${i}.ts`, text]))),
      ).toEqual([]);
    });
  });
});
