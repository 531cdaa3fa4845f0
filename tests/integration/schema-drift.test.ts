import { readFileSync } from "node:fs";
import { getDMMF } from "@prisma/get-dmmf";
import { describe, expect, it } from "vitest";
import { openTestDb } from "./setup/test-db";

// The migrated database (built by the SQL files) must be exactly what schema.prisma describes,
// so the Prisma client never disagrees with the tables it talks to.
const { db } = openTestDb();
const dmmf = getDMMF({ datamodel: readFileSync("prisma/schema.prisma", "utf8") });
if (!("datamodel" in dmmf)) throw new Error(`schema.prisma does not parse: ${JSON.stringify(dmmf)}`);
const { models, enums } = dmmf.datamodel;

type Field = (typeof models)[number]["fields"][number];
const enumDbName = (name: string) => enums.find((e) => e.name === name)?.dbName ?? name;

/** What PostgreSQL reports for a Prisma field: udt name plus length/precision where it matters. */
function expectedType(field: Field): string {
  const native = field.nativeType as [string, string[]] | null | undefined;
  let base: string;
  if (field.kind === "enum") base = enumDbName(field.type);
  else if (native) {
    const [name, args] = native;
    base =
      {
        Uuid: "uuid",
        Timestamptz: `timestamptz(${args[0] ?? 6})`,
        Timestamp: `timestamp(${args[0] ?? 6})`,
        VarChar: `varchar(${args[0]})`,
        Char: `bpchar(${args[0]})`,
        Text: "text",
        Integer: "int4",
        BigInt: "int8",
        SmallInt: "int2",
        Inet: "inet",
        Citext: "citext",
        JsonB: "jsonb",
      }[name] ?? `unmapped:${name}`;
  } else {
    base =
      {
        String: "text",
        Int: "int4",
        BigInt: "int8",
        Boolean: "bool",
        DateTime: "timestamp(3)",
        Json: "jsonb",
        Float: "float8",
        Bytes: "bytea",
        Decimal: "numeric",
      }[field.type] ?? `unmapped:${field.type}`;
  }
  return field.isList ? `${base}[]` : base;
}

type ColumnRow = {
  table_name: string;
  column_name: string;
  udt_name: string;
  is_nullable: "YES" | "NO";
  character_maximum_length: number | null;
  datetime_precision: number | null;
};

function actualType(row: ColumnRow): string {
  const isList = row.udt_name.startsWith("_");
  const udt = isList ? row.udt_name.slice(1) : row.udt_name;
  let base = udt;
  if (udt === "timestamptz" || udt === "timestamp") base = `${udt}(${row.datetime_precision})`;
  if ((udt === "varchar" || udt === "bpchar") && row.character_maximum_length)
    base = `${udt}(${row.character_maximum_length})`;
  return isList ? `${base}[]` : base;
}

describe("migrated database vs schema.prisma", () => {
  it("has exactly the tables of the datamodel", async () => {
    const rows = await db.$queryRaw<{ table_name: string }[]>`
      SELECT table_name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> '_prisma_migrations'`;
    expect(rows.map((r) => r.table_name).sort()).toEqual(models.map((m) => m.dbName ?? m.name).sort());
  });

  it("has the same columns, types and nullability", async () => {
    const rows = await db.$queryRaw<ColumnRow[]>`
      SELECT table_name, column_name, udt_name, is_nullable, character_maximum_length, datetime_precision
      FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`;
    const actual = rows.map(
      (r) => `${r.table_name}.${r.column_name} ${actualType(r)} ${r.is_nullable === "YES" ? "null" : "not null"}`,
    );
    const expected = models.flatMap((model) =>
      model.fields
        .filter((field) => field.kind !== "object")
        .map((field) => {
          // Lists are stored NOT NULL (empty array by default) so "no values" has one spelling.
          const nullable = !field.isRequired && !field.isList;
          return `${model.dbName ?? model.name}.${field.dbName ?? field.name} ${expectedType(field)} ${nullable ? "null" : "not null"}`;
        }),
    );
    expect(actual.sort()).toEqual(expected.sort());
  });

  it("has the same unique constraints and primary keys", async () => {
    const rows = await db.$queryRaw<{ table_name: string; columns: string[] }[]>`
      SELECT t.relname::text AS table_name,
             array_agg(a.attname::text ORDER BY k.ord) AS columns
      FROM pg_index i
      JOIN pg_class t ON t.oid = i.indrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = 'public'
      CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
      JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
      WHERE i.indisunique AND i.indpred IS NULL AND t.relname <> '_prisma_migrations'
      GROUP BY i.indexrelid, t.relname`;
    const actual = rows.map((r) => `${r.table_name}(${[...r.columns].sort().join(",")})`);
    const expected = models.flatMap((model) => {
      const table = model.dbName ?? model.name;
      const column = (name: string) => {
        const field = model.fields.find((f) => f.name === name);
        return field?.dbName ?? name;
      };
      const sets: string[][] = [];
      for (const field of model.fields) {
        if (field.isId || field.isUnique) sets.push([column(field.name)]);
      }
      if (model.primaryKey) sets.push(model.primaryKey.fields.map(column));
      for (const unique of model.uniqueFields) sets.push(unique.map(column));
      return sets.map((set) => `${table}(${[...set].sort().join(",")})`);
    });
    expect(actual.sort()).toEqual(expected.sort());
  });

  it("has the same enums and values", async () => {
    const rows = await db.$queryRaw<{ name: string; labels: string[] }[]>`
      SELECT t.typname::text AS name, array_agg(e.enumlabel::text ORDER BY e.enumsortorder) AS labels
      FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid
      JOIN pg_namespace n ON n.oid = t.typnamespace AND n.nspname = 'public'
      GROUP BY t.typname`;
    const actual = Object.fromEntries(rows.map((r) => [r.name, r.labels]));
    const expected = Object.fromEntries(
      enums.map((e) => [e.dbName ?? e.name, e.values.map((v) => v.dbName ?? v.name)]),
    );
    expect(actual).toEqual(expected);
  });
});
