import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { withDatabase } from "@/lib/db/embedded";
import { withCredentials } from "@/lib/db/role-setup";

// Runs before each test file: a private database cloned from the migrated template, owned by the
// run's owner role. The file connects as the app role; MIGRATION_DATABASE_URL is the owner, for the
// few tests that need DDL or to get past the grants on purpose.
const serverUrl = inject("serverUrl");
const database = `${inject("runPrefix")}_${randomBytes(5).toString("hex")}`;
const client = new pg.Client({ connectionString: serverUrl });
await client.connect();
try {
  await client.query(
    `CREATE DATABASE "${database}" TEMPLATE "${inject("templateDatabase")}" OWNER "${inject("ownerRole").name}"`,
  );
} finally {
  await client.end();
}
process.env.DATABASE_URL = withCredentials(withDatabase(serverUrl, database), inject("appRole"));
process.env.MIGRATION_DATABASE_URL = withCredentials(withDatabase(serverUrl, database), inject("ownerRole"));
