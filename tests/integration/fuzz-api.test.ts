import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parkCase } from "@/lib/services/case/park-case";
import {
  changedTables,
  createFuzzTokens,
  type FuzzRoute,
  type FuzzTokens,
  fetchCsrf,
  fuzzRoute,
  loadFuzzRoutes,
  tableChecksums,
} from "@/verification/fuzz/requests";
import { fuzzWire, startSlowClients, startWireEntry } from "@/verification/fuzz/wire";
import { parkInput, producer } from "./fixtures";
import { measureLoopLag } from "./helpers/loop-lag";
import { openTestDb } from "./setup/test-db";

// Hostile input against every public route: never a 500, never a changed row, always the documented error shape.
// The per-key rate limit is lifted so that the body and query parsers, not 429s, answer; a metrics token is set
// so that the metrics route is closed. Both must be set before the route modules first read the environment.
process.env.API_RATE_LIMIT_PER_MINUTE = "100000000";
process.env.METRICS_TOKEN = "fuzz-metrics-token-0123456789abcdef";
process.env.AUTH_SECRET ??= "fuzz-auth-secret-0123456789abcdef0123456789";

const PER_ROUTE = 300;
/**
 * The runs are a fixed number of requests, judged by what came back, never by how fast; this bound
 * only stops a run that hangs. A busy two-core machine took the former 120 s past it.
 */
const HANG_GUARD_MS = 20 * 60_000;
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
}, HANG_GUARD_MS);

afterAll(() => {
  console.error = quiet.error;
  console.warn = quiet.warn;
});

describe("hostile requests to every public route", () => {
  it("covers every documented operation plus the worker, metrics and sign-in routes", () => {
    expect(routes.length).toBeGreaterThanOrEqual(20);
  });

  it(`${PER_ROUTE} requests per route: no 500, documented error bodies, no changed rows`, {
    timeout: HANG_GUARD_MS,
  }, async () => {
    const failures: string[] = [];
    let unstorableBodies = 0;
    let malformedEscapes = 0;
    for (const [i, route] of routes.entries()) {
      const report = await fuzzRoute(db, route, tokens, {
        count: PER_ROUTE,
        seed: SEED + i * 1000,
        knownIds,
        concurrency: 4,
      });
      unstorableBodies += report.unstorableBodies;
      malformedEscapes += report.malformedEscapes;
      if (process.env.FUZZ_VERBOSE)
        process.stdout.write(`${route.name} ${report.ms}ms ${JSON.stringify(report.statuses)}\n`);
      if (
        report.serverErrors ||
        report.malformed ||
        report.writesAccepted ||
        report.malformedEscapesNot400 ||
        report.changedTables.length
      ) {
        failures.push(`${route.name} (seed ${SEED + i * 1000}): ${JSON.stringify(report)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(changedTables(initial, await tableChecksums(db))).toEqual([]);
    // The run really tried text PostgreSQL cannot store (and none of it got in, as checked above).
    expect(unstorableBodies).toBeGreaterThan(routes.length);
    // And paths whose percent-escapes do not decode, each answered 400 as the HTTP entry answers it.
    expect(malformedEscapes).toBeGreaterThan(0);
  });

  it("over the wire: header floods get 431, invalid UTF-8 a 4xx, trickling clients are cut; no 500, no changed rows", {
    timeout: HANG_GUARD_MS,
  }, async () => {
    const before = await tableChecksums(db);
    // Short limits, set the way server/main.ts sets its own, so that the trickling clients end in seconds.
    const entry = await startWireEntry({ headersMs: 1_000, requestMs: 2_000 });
    try {
      const lag = measureLoopLag();
      const slow = startSlowClients(entry.port, tokens.producer, { lanes: 2, intervalMs: 100, giveUpMs: 8_000 });
      const wire = await fuzzWire(entry.port, tokens.producer, { count: 400, seed: SEED, concurrency: 4 });
      const trickled = await slow.stop();
      const lateMs = lag.stop();
      if (process.env.FUZZ_VERBOSE) process.stdout.write(`${JSON.stringify({ wire, trickled, lateMs })}\n`);
      expect(wire.examples).toEqual([]);
      expect({
        serverErrors: wire.serverErrors,
        floodsNot431: wire.floodsNot431,
        malformedNot400: wire.malformedNot400,
        unanswered: wire.unanswered,
      }).toEqual({ serverErrors: 0, floodsNot431: 0, malformedNot400: 0, unanswered: 0 });
      // Malformed escapes on direct routes, Next's routes and console pages were sent, and answered 400.
      expect(wire.byKind["malformed escape in the path"]?.["400"]).toBeGreaterThan(0);
      // The run really sent floods past the limit, and requests that reached the routes.
      expect(wire.statuses["431"]).toBeGreaterThan(0);
      expect(Object.keys(wire.statuses).some((status) => status.startsWith("4") && status !== "431")).toBe(true);
      expect(trickled.clients).toBeGreaterThanOrEqual(2);
      expect({ notCut: trickled.notCut, serverErrors: trickled.serverErrors }).toEqual({ notCut: 0, serverErrors: 0 });
      // Cut by the request limit, not by the clients giving up: the limit, the slack it always had,
      // and twice the worst timer delay measured meanwhile (the server's check and the client's clock).
      expect(trickled.slowestMs).toBeLessThan(2_000 + 1_500 + 2 * lateMs);
    } finally {
      await entry.stop();
    }
    expect(changedTables(before, await tableChecksums(db))).toEqual([]);
  });
});
