import { MigrationError, migrate } from "../lib/db/migrate";
import { withLocalDatabase } from "./local-database";

// Against DATABASE_URL when set; otherwise against the embedded database under DATA_DIR.
await withLocalDatabase(
  async (url) => {
    try {
      const report = await migrate(url);
      if (report.applied.length === 0) console.log("Database is up to date: nothing to apply.");
      for (const name of report.applied) console.log(`Applied ${name}`);
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
