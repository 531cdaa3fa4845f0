import { createHash } from "node:crypto";
import { processShared } from "../process-shared";

/**
 * Names statements by a digest of their text, so each connection parses and plans a statement
 * once and then only binds and executes it: the worker's and the API's one-statement writes are
 * large CTEs whose planning otherwise costs about as much as running them. One name never means
 * two texts. Past `maxTexts` (an unbounded family, such as IN lists of every length) statements
 * go unnamed rather than grow every connection's cache without end.
 */
export function statementNamer(maxTexts = 2_000): (query: { sql: string }) => string {
  const names = new Map<string, string>();
  return (query) => {
    const known = names.get(query.sql);
    if (known !== undefined) return known;
    if (names.size >= maxTexts) return "";
    const name = `s_${createHash("sha256").update(query.sql).digest("base64url").slice(0, 24)}`;
    names.set(query.sql, name);
    return name;
  };
}

/** The process's namer: every client and `sqlRows` agree on names and share the cap. */
export const statementName = processShared("statement-names", () => statementNamer());

/**
 * Off only behind a connection pooler that cannot keep prepared statements per client (PgBouncer
 * in transaction mode before 1.21): `DATABASE_PREPARED_STATEMENTS=off`.
 */
export function preparedStatementsWanted(): boolean {
  return process.env.DATABASE_PREPARED_STATEMENTS !== "off";
}
