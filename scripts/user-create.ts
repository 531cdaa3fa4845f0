import { parseArgs } from "node:util";
import { z } from "zod";
import { generatePassword } from "../lib/auth/password";
import { createPrismaClient } from "../lib/db/client";
import { ROLES } from "../lib/domain/roles";
import { upsertUser } from "../lib/services/admin/upsert-user";
import { withLocalDatabase } from "./local-database";

const usage = "Usage: npm run user:create -- --email a@b.c --role reviewer [--role finance] [--name 'Ana B']";
const { values } = parseArgs({
  options: {
    email: { type: "string" },
    name: { type: "string" },
    role: { type: "string", multiple: true },
  },
});
const input = z
  .object({ email: z.email(), name: z.string().trim().min(1).max(200).optional(), role: z.array(z.enum(ROLES)).min(1) })
  .safeParse(values);
if (!input.success) {
  console.error(
    `${usage}\nRoles: ${ROLES.join(", ")}\n${input.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("\n")}`,
  );
  process.exit(2);
}

// The password is printed once and stored only as a hash; run again to issue a new one.
await withLocalDatabase(async (url) => {
  const db = createPrismaClient(url, 1);
  try {
    const password = generatePassword();
    const user = await upsertUser(db, {
      email: input.data.email,
      name: input.data.name,
      roles: input.data.role,
      password,
    });
    console.log(`User ${user.email} (${user.roles.join(", ")}) is ready.`);
    console.log(`Password (shown once): ${password}`);
  } finally {
    await db.$disconnect();
  }
});
