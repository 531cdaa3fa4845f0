import { parseArgs } from "node:util";
import { z } from "zod";
import { createPrismaClient } from "../lib/db/client";
import { createAccessToken } from "../lib/services/access/create-access-token";
import { withLocalDatabase } from "./local-database";

// npm run apikey:create -- --name shop-app   |   npm run worker-token:create -- --name w1
const kind = process.argv[2] === "worker" ? "worker" : "api_key";
const { values } = parseArgs({ args: process.argv.slice(3), options: { name: { type: "string" } } });
const name = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9._-]{0,62}$/i, "letters, digits, '.', '_' or '-', up to 63 characters")
  .safeParse(values.name);
if (!name.success) {
  console.error(
    `Usage: npm run ${kind === "worker" ? "worker-token" : "apikey"}:create -- --name <name>\n${name.error.issues[0]?.message}`,
  );
  process.exit(2);
}

await withLocalDatabase(async (url) => {
  const db = createPrismaClient(url, 1);
  try {
    const token = await createAccessToken(db, "cli", { kind, name: name.data });
    console.log(
      `${kind === "worker" ? "Worker token" : "API key for producer"} "${token.name}" created (id ${token.id}).`,
    );
    console.log(`Secret (shown once, store it now): ${token.secret}`);
  } finally {
    await db.$disconnect();
  }
});
