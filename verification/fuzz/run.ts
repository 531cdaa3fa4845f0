import { mkdtemp, rm } from "node:fs/promises";
import { register } from "node:module";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { startEmbeddedPostgres } from "../../lib/db/embedded";
import { migrate } from "../../lib/db/migrate";
import { provisionRoles, throwawayRoles } from "../../lib/db/role-setup";
import { measureLoopLag } from "../../tests/integration/helpers/loop-lag";
import { integerOption } from "../shared/integer-option";
import type { RouteReport } from "./requests";

/**
 * Sends hostile requests (default 100,000 in all) to every public route against a throwaway
 * embedded PostgreSQL, and prints three figures that must all be 0: responses with status 500,
 * tables whose rows changed, and error bodies not in the documented shape. Then raw requests over
 * the wire (default 10,000: header floods, invalid UTF-8 in the request line, headers and body) to
 * an HTTP entry with server/main.ts's timeouts (shortened), while clients trickle requests to it a
 * byte at a time for the whole run: floods past the header limit get 431, every trickling client
 * is cut by the timeout, paths whose percent-escapes do not decode get 400 (the API's typed error
 * under /api/, a page elsewhere), nothing answers 500.
 *   npm run verify:fuzz -- --requests 100000 [--wire-requests 10000] [--seed 1] [--concurrency 8]
 */
const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "100000" },
    "wire-requests": { type: "string", default: "10000" },
    seed: { type: "string", default: "20261129" },
    concurrency: { type: "string", default: "8" },
  },
});
const total = integerOption(values, "requests", 1);
const seed = integerOption(values, "seed", 0);
const concurrency = integerOption(values, "concurrency", 1);
const wireTotal = integerOption(values, "wire-requests", 0);
/** Shortened from 15 s / 30 s so that the trickling clients end in seconds; the mechanism is the same. */
const SLOW = { headersMs: 2_000, requestMs: 4_000, intervalMs: 200, lanes: 4 };
/**
 * A trickling client waits for the server to cut it this long before it counts as not cut: a bound on
 * a hung server, not on a slow machine. How late a cut may be is judged from the timer delay measured
 * meanwhile (in this process, which runs the server), as the test of the same clients in `npm test` does:
 * on a two-core machine at a load of 13, a fixed 16 s left four clients "not cut" that the server cut later.
 */
const SLOW_HANG_GUARD_MS = 120_000;

const dataDir = await mkdtemp(path.join(os.tmpdir(), "verify-fuzz-"));
const embedded = await startEmbeddedPostgres({ dataDir: path.join(dataDir, "pg"), preferredPort: 56432 });
let exitCode = 1;
try {
  // Migrated as the owner; the routes run as the app's role, as in production.
  const roles = await provisionRoles(embedded.url, "verify_fuzz", throwawayRoles("verify_fuzz"));
  await migrate(roles.ownerUrl, { appRole: roles.appRole });
  const url = roles.url;
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
  const { createPrismaClient } = await import("../../lib/db/client");
  const { parkCase } = await import("../../lib/services/case/park-case");
  const { parkInput, producer } = await import("../../tests/integration/fixtures");
  const fuzz = await import("./requests");
  const wire = await import("./wire");
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
  const entry = await wire.startWireEntry(SLOW);
  const lag = measureLoopLag();
  const slow = wire.startSlowClients(entry.port, tokens.producer, {
    lanes: SLOW.lanes,
    intervalMs: SLOW.intervalMs,
    giveUpMs: SLOW_HANG_GUARD_MS,
  });
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
  const wireStarted = Date.now();
  const wireReport = await wire.fuzzWire(entry.port, tokens.producer, { count: wireTotal, seed, concurrency });
  const trickled = await slow.stop();
  const lateMs = lag.stop();
  // The request limit, the slack Node's check interval always adds, and twice the worst timer delay.
  const cutBoundMs = Math.round(SLOW.requestMs + 1_500 + 2 * lateMs);
  await entry.stop();
  const statusText = (statuses: Record<string, number>) =>
    Object.entries(statuses)
      .map(([s, n]) => `${s}:${n}`)
      .join(" ");
  log(
    `${"wire (raw bytes over TCP)".padEnd(50)} ${String(wireReport.requests).padStart(6)}  ${statusText(wireReport.statuses)}`,
  );
  for (const [kind, statuses] of Object.entries(wireReport.byKind))
    log(`    ${kind.padEnd(46)} ${statusText(statuses)}`);
  for (const example of wireReport.examples) log(`    ${example.slice(0, 400)}`);
  log(`    wire phase ${((Date.now() - wireStarted) / 1000).toFixed(1)} s`);
  const changed = fuzz.changedTables(initial, await fuzz.tableChecksums(db));
  await db.$disconnect();

  const sum = (pick: (r: RouteReport) => number) => reports.reduce((n, r) => n + pick(r), 0);
  const figures = {
    requests: sum((r) => r.requests),
    wireRequests: wireReport.requests,
    status500: sum((r) => r.serverErrors) + wireReport.serverErrors + trickled.serverErrors,
    changedTables: changed.length,
    malformedErrorBodies: sum((r) => r.malformed),
    acceptedWrites: sum((r) => r.writesAccepted),
    unstorableBodies: sum((r) => r.unstorableBodies),
    malformedEscapes:
      sum((r) => r.malformedEscapes) +
      (wireReport.byKind["malformed escape in the path"]
        ? Object.values(wireReport.byKind["malformed escape in the path"]).reduce((a, b) => a + b, 0)
        : 0),
    malformedNot400: sum((r) => r.malformedEscapesNot400) + wireReport.malformedNot400,
  };
  log("");
  log(`seed ${seed}, ${routes.length} routes, ${((Date.now() - started) / 1000).toFixed(1)} s`);
  log(`requests sent:          ${figures.requests} in-process, ${figures.wireRequests} over the wire`);
  log(`responses with 500:     ${figures.status500}`);
  log(`tables changed:         ${figures.changedTables}${changed.length ? ` (${changed.join(", ")})` : ""}`);
  log(`malformed error bodies: ${figures.malformedErrorBodies}`);
  log(`accepted writes:        ${figures.acceptedWrites}`);
  log(`bodies with NUL or lone surrogates: ${figures.unstorableBodies}`);
  log(`header floods past the limit not answered 431: ${wireReport.floodsNot431}`);
  log(`paths with malformed escapes: ${figures.malformedEscapes}, not answered 400: ${figures.malformedNot400}`);
  log(`wire requests left unanswered: ${wireReport.unanswered}`);
  log(
    `trickling clients:      ${trickled.clients}, cut by the server ${trickled.cutByServer}, not cut ${trickled.notCut}, slowest cut after ${trickled.slowestMs} ms (limits ${SLOW.headersMs}/${SLOW.requestMs} ms; bound ${cutBoundMs} ms with the worst timer delay, ${Math.round(lateMs)} ms)`,
  );
  exitCode =
    figures.status500 ||
    figures.changedTables ||
    figures.malformedErrorBodies ||
    figures.acceptedWrites ||
    wireReport.floodsNot431 ||
    figures.malformedNot400 ||
    wireReport.unanswered ||
    trickled.notCut ||
    trickled.slowestMs >= cutBoundMs
      ? 1
      : 0;
} finally {
  await embedded.stop();
  await rm(dataDir, { recursive: true, force: true });
}
process.exit(exitCode);
