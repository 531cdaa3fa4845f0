import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parkCase } from "../../lib/services/park-case";
import { parkInput, producer } from "./fixtures";
import {
  changedTables,
  createFuzzTokens,
  type FuzzRoute,
  type FuzzTokens,
  fetchCsrf,
  fuzzRoute,
  loadFuzzRoutes,
  tableChecksums,
} from "./helpers/fuzz-requests";
import { openTestDb } from "./setup/test-db";

// Hostile input against every public route: never a 500, never a changed row, always the documented error shape.
// The per-key rate limit is lifted so that the body and query parsers, not 429s, answer; a metrics token is set
// so that the metrics route is closed. Both must be set before the route modules first read the environment.
process.env.API_RATE_LIMIT_PER_MINUTE = "100000000";
process.env.METRICS_TOKEN = "fuzz-metrics-token-0123456789abcdef";
process.env.AUTH_SECRET ??= "fuzz-auth-secret-0123456789abcdef0123456789";

const PER_ROUTE = 300;
const SEED = Number(process.env.FUZZ_SEED ?? 20261129);
const { db } = openTestDb();
let routes: FuzzRoute[] = [];
let tokens: FuzzTokens;
let knownIds: string[] = [];
let initial: Record<string, string> = {};
const quiet = { error: console.error, warn: console.warn };

beforeAll(async () => {
  routes = await loadFuzzRoutes();
  tokens = await createFuzzTokens(db);
  tokens.csrf = await fetchCsrf(routes);
  const parked = await parkCase(db, producer(), parkInput("polling"));
  const hold = await db.hold.findFirst();
  knownIds = [(parked as { caseId: string }).caseId, ...(hold ? [hold.id] : [])];
  initial = await tableChecksums(db);
  // Refused requests are logged by the auth library; keep the run readable.
  console.error = () => {};
  console.warn = () => {};
}, 60_000);

afterAll(() => {
  console.error = quiet.error;
  console.warn = quiet.warn;
});

describe("hostile requests to every public route", () => {
  it("covers every documented operation plus the worker, metrics and sign-in routes", () => {
    expect(routes.length).toBeGreaterThanOrEqual(20);
  });

  it(`${PER_ROUTE} requests per route: no 500, documented error bodies, no changed rows`, {
    timeout: 120_000,
  }, async () => {
    const failures: string[] = [];
    let unstorableBodies = 0;
    for (const [i, route] of routes.entries()) {
      const report = await fuzzRoute(db, route, tokens, {
        count: PER_ROUTE,
        seed: SEED + i * 1000,
        knownIds,
        concurrency: 4,
      });
      unstorableBodies += report.unstorableBodies;
      if (process.env.FUZZ_VERBOSE)
        process.stdout.write(`${route.name} ${report.ms}ms ${JSON.stringify(report.statuses)}\n`);
      if (report.serverErrors || report.malformed || report.writesAccepted || report.changedTables.length) {
        failures.push(`${route.name} (seed ${SEED + i * 1000}): ${JSON.stringify(report)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(changedTables(initial, await tableChecksums(db))).toEqual([]);
    // The run really tried text PostgreSQL cannot store (and none of it got in, as checked above).
    expect(unstorableBodies).toBeGreaterThan(routes.length);
  });
});
