import { mkdtemp, rm } from "node:fs/promises";
import { register } from "node:module";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { runOnServer, startEmbeddedPostgres, withDatabase } from "../lib/db/embedded";
import { migrate } from "../lib/db/migrate";
import type { RouteReport } from "../tests/integration/helpers/fuzz-requests";
import { integerOption } from "./verify/integer-option";

/**
 * Sends hostile requests (default 100,000 in all) to every public route against a throwaway
 * embedded PostgreSQL, and prints three figures that must all be 0: responses with status 500,
 * tables whose rows changed, and error bodies not in the documented shape.
 *   npm run verify:fuzz -- --requests 100000 [--seed 1] [--concurrency 8]
 */
const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "100000" },
    seed: { type: "string", default: "20261129" },
    concurrency: { type: "string", default: "8" },
  },
});
const total = integerOption(values, "requests", 1);
const seed = integerOption(values, "seed", 0);
const concurrency = integerOption(values, "concurrency", 1);

const dataDir = await mkdtemp(path.join(os.tmpdir(), "verify-fuzz-"));
const embedded = await startEmbeddedPostgres({ dataDir: path.join(dataDir, "pg"), preferredPort: 56432 });
let exitCode = 1;
try {
  await runOnServer(embedded.url, 'CREATE DATABASE "verify_fuzz"');
  const url = withDatabase(embedded.url, "verify_fuzz");
  await migrate(url);
  // Set before any route module reads the environment (hence the dynamic imports below).
  process.env.DATABASE_URL = url;
  process.env.API_RATE_LIMIT_PER_MINUTE = "1000000000";
  process.env.METRICS_TOKEN = "verify-fuzz-metrics-token-0123456789";
  process.env.AUTH_SECRET ??= "verify-fuzz-auth-secret-0123456789abcdef";
  // Production needs an explicit provider; worker ticks here reach nothing (connection refused at once).
  process.env.PROVIDER_MODE ??= "simulator";
  process.env.SIMULATOR_URL ??= "http://127.0.0.1:9";
  process.env.SIMULATOR_TOKEN ??= "verify-fuzz-no-simulator";
  process.env.NEXTAUTH_URL ??= "http://localhost:3000";

  // Outside Next's bundler, the auth library's CommonJS `exports.default` arrives as the exports object.
  register(
    `data:text/javascript,${encodeURIComponent(`
      export async function resolve(specifier, context, next) {
        if (specifier !== "next-auth" && specifier !== "next-auth/providers/credentials") return next(specifier, context);
        const real = JSON.stringify((await next(specifier, context)).url);
        const shim = "import m from " + real + "; export * from " + real + "; export default typeof m === 'function' ? m : m.default;";
        return { url: "data:text/javascript," + encodeURIComponent(shim), shortCircuit: true };
      }`)}`,
  );
  const { createPrismaClient } = await import("../lib/db/client");
  const { parkCase } = await import("../lib/services/park-case");
  const { parkInput, producer } = await import("../tests/integration/fixtures");
  const fuzz = await import("../tests/integration/helpers/fuzz-requests");
  const db = createPrismaClient(url, 5);

  const routes = await fuzz.loadFuzzRoutes();
  const tokens = await fuzz.createFuzzTokens(db);
  tokens.csrf = await fuzz.fetchCsrf(routes);
  const parked = await parkCase(db, producer(), parkInput("polling"));
  const hold = await db.hold.findFirst();
  const knownIds = [(parked as { caseId: string }).caseId, ...(hold ? [hold.id] : [])];
  const initial = await fuzz.tableChecksums(db);

  // The auth library logs every refused session cookie; the figures below are what matters.
  const log = console.log;
  console.error = () => {};
  console.warn = () => {};
  const started = Date.now();
  const reports: RouteReport[] = [];
  for (const [i, route] of routes.entries()) {
    const count = Math.floor(total / routes.length) + (i < total % routes.length ? 1 : 0);
    const report = await fuzz.fuzzRoute(db, route, tokens, { count, seed: seed + i * 1000, knownIds, concurrency });
    reports.push(report);
    const statuses = Object.entries(report.statuses)
      .map(([s, n]) => `${s}:${n}`)
      .join(" ");
    log(`${route.name.padEnd(50)} ${String(report.requests).padStart(6)}  ${statuses}`);
    for (const example of report.examples) log(`    ${example.slice(0, 400)}`);
  }
  const changed = fuzz.changedTables(initial, await fuzz.tableChecksums(db));
  await db.$disconnect();

  const sum = (pick: (r: RouteReport) => number) => reports.reduce((n, r) => n + pick(r), 0);
  const figures = {
    requests: sum((r) => r.requests),
    status500: sum((r) => r.serverErrors),
    changedTables: changed.length,
    malformedErrorBodies: sum((r) => r.malformed),
    acceptedWrites: sum((r) => r.writesAccepted),
    unstorableBodies: sum((r) => r.unstorableBodies),
  };
  log("");
  log(`seed ${seed}, ${routes.length} routes, ${((Date.now() - started) / 1000).toFixed(1)} s`);
  log(`requests sent:          ${figures.requests}`);
  log(`responses with 500:     ${figures.status500}`);
  log(`tables changed:         ${figures.changedTables}${changed.length ? ` (${changed.join(", ")})` : ""}`);
  log(`malformed error bodies: ${figures.malformedErrorBodies}`);
  log(`accepted writes:        ${figures.acceptedWrites}`);
  log(`bodies with NUL or lone surrogates: ${figures.unstorableBodies}`);
  exitCode =
    figures.status500 || figures.changedTables || figures.malformedErrorBodies || figures.acceptedWrites ? 1 : 0;
} finally {
  await embedded.stop();
  await rm(dataDir, { recursive: true, force: true });
}
process.exit(exitCode);
