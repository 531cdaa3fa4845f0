import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { withDatabase } from "../../../lib/db/embedded";

// Runs before each test file: a private database cloned from the migrated template.
const serverUrl = inject("serverUrl");
const database = `${inject("runPrefix")}_${randomBytes(5).toString("hex")}`;
const client = new pg.Client({ connectionString: serverUrl });
await client.connect();
try {
  await client.query(`CREATE DATABASE "${database}" TEMPLATE "${inject("templateDatabase")}"`);
} finally {
  await client.end();
}
process.env.DATABASE_URL = withDatabase(serverUrl, database);
