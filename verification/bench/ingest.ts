import pg from "pg";
import { type ParkBody, parkBody } from "./lib/app-ingest-bodies";
import { type LoadFigures, runRawRegistrations } from "./lib/app-ingest-raw";
import { appServer, producerKey } from "./lib/app-server";
import { postLoad } from "./lib/post-load";
import { type Measured, measured, postmasterOf } from "./lib/queue-machine";
import { statsAgreeWithRebuild } from "./lib/scale-seed";
import type { BenchCheck, BenchPart, BenchRow } from "./lib/types";

/**
 * Part 4: a burst of registrations over HTTP against the app server (16 connections, autocannon):
 * 20,000 new cases, then the same 20,000 bodies again (idempotent replays), next to the same rows
 * written by one raw statement per case over a pg pool of 16.
 */
const CASES = Number(process.env.BENCH_INGEST_CASES ?? 20_000);
const CONNECTIONS = 16;
const WARM_UP = 300;
const PRODUCER = "bench-shop";

type HttpFigures = LoadFigures & { statuses: Record<string, number> };

async function postAll(url: string, secret: string | null, bodies: ParkBody[]): Promise<HttpFigures> {
  const headers: Record<string, string> = secret ? { authorization: `Bearer ${secret}` } : {};
  const requests = bodies.map((body) => ({ path: "/api/v1/cases", body: JSON.stringify(body), headers }));
  const figures = await postLoad(url, requests, CONNECTIONS);
  return { ...figures, created: figures.statuses["201"] ?? 0 };
}

type Counts = Record<string, number>;

async function countRows(databaseUrl: string, producer: string): Promise<Counts> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<Counts>(
      `SELECT
         (SELECT count(*)::int FROM operations WHERE producer = $1) AS operations,
         (SELECT count(*)::int FROM cases WHERE producer = $1) AS cases,
         (SELECT count(*)::int FROM holds WHERE producer = $1) AS holds,
         (SELECT count(*)::int FROM ledger_entries e JOIN holds h ON h.id = e.hold_ref
           WHERE h.producer = $1 AND e.kind = 'reserve') AS reserves,
         (SELECT count(*)::int FROM audit_events WHERE kind = 'parked' AND actor_label = 'api key ' || $1) AS parked,
         (SELECT count(*)::int FROM audit_events WHERE kind = 'hold_reserved' AND actor_label = 'api key ' || $1)
           AS hold_reserved,
         (SELECT coalesce(sum(amount_micros), 0)::float8 FROM holds WHERE producer = $1) AS held_micros`,
      [producer],
    );
    return rows[0] ?? {};
  } finally {
    await client.end();
  }
}

const expectedCounts = (bodies: ParkBody[]): Counts => ({
  operations: bodies.length,
  cases: bodies.length,
  holds: bodies.length,
  reserves: bodies.length,
  parked: bodies.length,
  hold_reserved: bodies.length,
  held_micros: bodies.reduce((sum, body) => sum + body.hold.amountMicros, 0),
});

const summary = (figures: LoadFigures) =>
  `${figures.count} in ${figures.seconds.toFixed(1)} s, ${figures.perSecond.toFixed(0)}/s, p99 ${figures.p99Ms.toFixed(1)} ms`;

type CpuPerRequest = { database: number; app: number; client: number; total: number };

function cpuPerRequest(result: Measured<unknown>, requests: number): CpuPerRequest | undefined {
  const { serverCpu, helperCpu, ownCpu } = result;
  if (serverCpu === undefined || helperCpu === undefined || ownCpu === undefined || requests === 0) return undefined;
  const ms = (seconds: number) => (seconds / requests) * 1000;
  return { database: ms(serverCpu), app: ms(helperCpu), client: ms(ownCpu), total: ms(serverCpu + helperCpu + ownCpu) };
}

/**
 * Where each request's CPU goes, against the raw statement's: on two cores the processes share,
 * a rate is bounded by the CPU a request takes across all of them.
 */
function cpuRows(
  cpu: Record<"httpNew" | "rawNew" | "httpReplay" | "rawReplay" | "floor", CpuPerRequest | undefined>,
): BenchRow[] {
  const { httpNew, rawNew, httpReplay, rawReplay, floor } = cpu;
  if (!httpNew || !rawNew || !httpReplay || !rawReplay || !floor) return [];
  const row = (metric: string, value: number, baseline: string, against: number): BenchRow => ({
    part: "ingest",
    metric,
    value,
    unit: "ms",
    baseline: { label: baseline, value: against },
    better: "lower",
  });
  const all = "PostgreSQL, app server, load generator";
  const raw = "raw: PostgreSQL and its pg client";
  return [
    row(`CPU per new case, all processes (${all})`, httpNew.total, raw, rawNew.total),
    row(`CPU per re-registration, all processes (${all})`, httpReplay.total, raw, rawReplay.total),
    row("PostgreSQL CPU per re-registration", httpReplay.database, "raw: PostgreSQL", rawReplay.database),
    row(
      "CPU per request refused before any database work (401), all processes",
      floor.total,
      "raw re-registration, all processes",
      rawReplay.total,
    ),
  ];
}

const part: BenchPart = {
  name: "ingest",
  async run(ctx) {
    const server = await appServer(ctx, "ingest");
    const key = await producerKey(server, PRODUCER);
    const rawUrl = await ctx.createDatabase("ingest_raw");
    const producer = { id: key.id, name: PRODUCER };
    const warm = Array.from({ length: WARM_UP }, (_, i) => parkBody("warm", i));
    const bodies = Array.from({ length: CASES }, (_, i) => parkBody("burst", i));

    // Warm both sides (route compilation, connection pools, plan caches) before any clock runs.
    await postAll(server.url, key.secret, warm);
    await runRawRegistrations(rawUrl, warm, producer, CONNECTIONS);

    // Each run's CPU per request, per process: PostgreSQL, the app server, and this process (the
    // load generator, or the raw runs' pg client).
    const postmaster = await postmasterOf(server.databaseUrl);
    const phase = async <T extends LoadFigures>(name: string, run: () => Promise<T>) => {
      const result = await measured(postmaster, run, [server.pid]);
      const figures = result.value;
      const cpu = cpuPerRequest(result, figures.count);
      const split = cpu
        ? `; CPU per request: PostgreSQL ${cpu.database.toFixed(2)} ms, app server ${cpu.app.toFixed(2)} ms, ` +
          `this process ${cpu.client.toFixed(2)} ms; others used ${((result.foreignShare ?? 0) * 100).toFixed(0)}%`
        : "";
      ctx.log(`ingest: ${name} ${summary(figures)}${split}`);
      return { figures, cpu };
    };
    ctx.log(`ingest: ${CASES} new cases over HTTP…`);
    const httpNew = await phase("HTTP new", () => postAll(server.url, key.secret, bodies));
    const rawNew = await phase("raw new", () => runRawRegistrations(rawUrl, bodies, producer, CONNECTIONS));
    const httpReplay = await phase("HTTP replay", () => postAll(server.url, key.secret, bodies));
    const rawReplay = await phase("raw replay", () => runRawRegistrations(rawUrl, bodies, producer, CONNECTIONS));

    // The framework's own floor on this machine: the same route refusing the request before any
    // database work (no credentials, 401). No registration can be answered faster than this.
    const floorBodies = bodies.slice(0, Math.min(CASES, 5_000));
    const floor = await phase("HTTP floor (401, no database)", () => postAll(server.url, null, floorBodies));
    ctx.log(
      `ingest: statuses new ${JSON.stringify(httpNew.figures.statuses)}, replay ${JSON.stringify(httpReplay.figures.statuses)}, floor ${JSON.stringify(floor.figures.statuses)}`,
    );

    const all = [...warm, ...bodies];
    const [productCounts, rawCounts] = await Promise.all([
      countRows(server.databaseUrl, PRODUCER),
      countRows(rawUrl, PRODUCER),
    ]);
    const expected = expectedCounts(all);
    const totals = await statsAgreeWithRebuild(server.databaseUrl);
    const label = "raw INSERT … ON CONFLICT, pg pool of 16";
    const rows: BenchRow[] = [
      {
        part: "ingest",
        metric: `POST /api/v1/cases, ${CASES.toLocaleString("en-US")} new cases (16 connections)`,
        value: httpNew.figures.perSecond,
        unit: "req/s",
        baseline: { label, value: rawNew.figures.perSecond },
        better: "higher",
        target: ">= 0.5x raw",
      },
      {
        part: "ingest",
        metric: "p99 latency, new cases",
        value: httpNew.figures.p99Ms,
        unit: "ms",
        baseline: { label, value: rawNew.figures.p99Ms },
        better: "lower",
      },
      {
        part: "ingest",
        metric: `POST /api/v1/cases, ${CASES.toLocaleString("en-US")} identical re-registrations`,
        value: httpReplay.figures.perSecond,
        unit: "req/s",
        baseline: { label, value: rawReplay.figures.perSecond },
        better: "higher",
        target: ">= 0.8x raw",
      },
      {
        part: "ingest",
        metric: "p99 latency, re-registrations",
        value: httpReplay.figures.p99Ms,
        unit: "ms",
        baseline: { label, value: rawReplay.figures.p99Ms },
        better: "lower",
      },
      {
        part: "ingest",
        metric: "same route refused before any database work (401), the HTTP floor",
        value: floor.figures.perSecond,
        unit: "req/s",
        baseline: { label, value: rawReplay.figures.perSecond },
        better: "higher",
      },
      ...cpuRows({
        httpNew: httpNew.cpu,
        rawNew: rawNew.cpu,
        httpReplay: httpReplay.cpu,
        rawReplay: rawReplay.cpu,
        floor: floor.cpu,
      }),
    ];
    const only = (statuses: Record<string, number>, status: string, n: number) =>
      Object.keys(statuses).length === 1 && statuses[status] === n;
    const checks: BenchCheck[] = [
      {
        part: "ingest",
        name: "every new registration answered 201",
        ok: only(httpNew.figures.statuses, "201", CASES),
        detail: JSON.stringify(httpNew.figures.statuses),
      },
      {
        part: "ingest",
        name: "every re-registration answered 200 (the existing case)",
        ok: only(httpReplay.figures.statuses, "200", CASES),
        detail: JSON.stringify(httpReplay.figures.statuses),
      },
      {
        part: "ingest",
        name: "one operation, case, hold, reserve entry and two audit events per registration",
        ok: JSON.stringify(productCounts) === JSON.stringify(expected),
        detail: JSON.stringify(productCounts),
      },
      {
        part: "ingest",
        name: "the raw baseline wrote the same rows (new: all created, replay: none)",
        ok:
          JSON.stringify(rawCounts) === JSON.stringify(expected) &&
          rawNew.figures.created === CASES &&
          rawReplay.figures.created === 0,
        detail: `${JSON.stringify(rawCounts)}; created ${rawNew.figures.created} then ${rawReplay.figures.created}`,
      },
      {
        part: "ingest",
        name: "the running totals the triggers kept through the burst equal a rebuild from the rows",
        ok: totals.ok,
        detail: `${totals.groups} figure groups`,
      },
      {
        part: "ingest",
        name: "the floor run was refused (401) before any work",
        ok: only(floor.figures.statuses, "401", floorBodies.length),
        detail: JSON.stringify(floor.figures.statuses),
      },
    ];
    return { rows, checks };
  },
};

export default part;
