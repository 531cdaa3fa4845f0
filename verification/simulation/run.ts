import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createPrismaClient } from "../../lib/db/client";
import { runOnServer, startEmbeddedPostgres } from "../../lib/db/embedded";
import { migrate } from "../../lib/db/migrate";
import { provisionRoles, throwawayRoles } from "../../lib/db/role-setup";
import { integerOption } from "../shared/integer-option";
import { passed, runSimulation } from "./engine";
import { preferUnixSocket } from "./local-socket";
import { report } from "./report";

/**
 * Deterministic fault simulation on a throwaway embedded PostgreSQL: the real services and worker
 * against the provider simulator, with faults at every point of an ambiguous submission, driven by
 * a seed (the same seed replays the same run and prints the same trace digest). Prints the
 * auditor's figures; exits 1 when any figure that must be 0 is not.
 *   npm run verify:sim -- --seed 1 --jobs 10000 [--workers 3] [--trace trace.txt]
 * (--trace writes the whole logical trace, one step per line, to compare two runs with diff).
 */
const { values } = parseArgs({
  options: {
    seed: { type: "string", default: "1" },
    jobs: { type: "string", default: "1000" },
    workers: { type: "string", default: "3" },
    trace: { type: "string" },
  },
});
const seed = integerOption(values, "seed", 0);
const jobs = integerOption(values, "jobs", 1);
const workers = integerOption(values, "workers", 2);

const dataDir = await mkdtemp(path.join(os.tmpdir(), "verify-sim-"));
const embedded = await startEmbeddedPostgres({ dataDir: path.join(dataDir, "pg"), preferredPort: 57432 });
let exitCode = 1;
try {
  // Migrated as the owner; the services and worker run as the app's role, as in production.
  const roles = await provisionRoles(embedded.url, "verify_sim", throwawayRoles("verify_sim"));
  // A throwaway database: commits need not wait for the disk (the simulation is about ordering, not durability).
  await runOnServer(embedded.url, 'ALTER DATABASE "verify_sim" SET synchronous_commit = off');
  await migrate(roles.ownerUrl, { appRole: roles.appRole });
  const url = preferUnixSocket(roles.url);
  const db = createPrismaClient(url, 4);
  const trace = values.trace ? createWriteStream(values.trace) : null;
  try {
    const result = await runSimulation({
      db,
      url,
      seed,
      jobs,
      workers,
      onTrace: trace ? (line) => trace.write(`${line}\n`) : undefined,
      onProgress: (arrived, so) =>
        console.error(
          `  ${arrived} of ${jobs} jobs arrived, ${so.steps} steps, ${so.ticks} ticks, ${(so.wallMs / 1000).toFixed(0)} s`,
        ),
    });
    for (const line of report(result)) console.log(line);
    exitCode = passed(result) ? 0 : 1;
  } finally {
    await db.$disconnect();
    await new Promise((resolve) => (trace ? trace.end(resolve) : resolve(null)));
  }
} finally {
  await embedded.stop();
  await rm(dataDir, { recursive: true, force: true });
}
process.exit(exitCode);
