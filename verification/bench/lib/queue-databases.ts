import { withDatabase } from "../../../lib/db/embedded";
import { sql } from "./queue-seed";
import type { BenchContext } from "./types";

/**
 * Fresh databases for many short runs: the first is migrated through the bench context and kept as
 * a template, the rest are copies of it (a copy takes a fraction of a migration). Each copy is
 * dropped by `drop` once its run has been checked.
 */
export function databaseCopies(ctx: BenchContext, prefix: string) {
  let template: Promise<string> | undefined;
  let made = 0;
  const templateName = async () => {
    template ??= ctx.createDatabase(`${prefix}_template`);
    return new URL(await template).pathname.slice(1);
  };
  return {
    async fresh(): Promise<string> {
      const source = await templateName();
      const name = `${source.replace(/_template/, "")}_${++made}`;
      await sql(ctx.serverUrl, `CREATE DATABASE "${name}" TEMPLATE "${source}"`);
      return withDatabase(ctx.serverUrl, name);
    },
    async drop(url: string): Promise<void> {
      const name = new URL(url).pathname.slice(1);
      await sql(ctx.serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}
