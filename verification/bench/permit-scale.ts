import { createHash, randomBytes, randomUUID } from "node:crypto";
import pg from "pg";
import { createPrismaClient } from "../../lib/db/client";
import type { Principal } from "../../lib/domain/principal";
import { type PermitSettings, requestPermit } from "../../lib/services/permit/request-permit";
import { RAW_PERMIT } from "./lib/raw-permit";
import type { BenchCheck, BenchPart, BenchRow } from "./lib/types";

/**
 * Whether the gate in front of every paid call has a global hot row (decision 059): send permits for
 * new operations through the product's own service, at 16 and then 64 database connections, from 16
 * producers (each with its sends limit: the gate locks the producer's limit row, by design, so one
 * producer's permits take turns on it), next to the same rows written by one raw statement per
 * permit at the same connection counts. While each run goes, a second connection samples
 * `pg_stat_activity` and `pg_locks` every 20 ms: how many backends wait on a lock, and on which table's rows.
 */
const PERMITS = Number(process.env.BENCH_SCALE_PERMITS ?? 4_000);
const PRODUCERS = 16;
const LEVELS = [16, 64] as const;
const SETTINGS: PermitSettings = {
  STORE_PROMPTS: "0",
  AUTH_SECRET: randomBytes(32).toString("base64url"),
  authUrl: "http://127.0.0.1:9",
};

type Run = { perSecond: number; p50Ms: number; p99Ms: number; failures: number; waits: WaitSamples };
type WaitSamples = { samples: number; meanWaiting: number; maxWaiting: number; onRow: Record<string, number> };

const producers = Array.from({ length: PRODUCERS }, (_, i) => `scale-shop-${i}`);
const principals: Principal[] = producers.map((name) => ({ kind: "api_key", apiKeyId: randomUUID(), name }));

function permitInput(operationId: string) {
  return {
    attemptId: `${operationId}-a1`,
    requestFingerprint: `sha256:${createHash("sha256").update(operationId).digest("hex")}`,
    provider: "replicate" as const,
    model: "minimax/video-01",
    hold: { holdId: `hold-${operationId}`, amountMicros: 500_000, currency: "USD" },
    sendDeadline: new Date(Date.now() + 20 * 60_000).toISOString(),
  };
}

/** Each backend of this database waiting on a lock, and the table whose row it is queued for. */
const WAITS_SQL = `
  SELECT a.pid, coalesce((SELECT l.relation::regclass::text FROM pg_locks l
                          WHERE l.pid = a.pid AND l.locktype = 'tuple' LIMIT 1), a.wait_event) AS what
  FROM pg_stat_activity a
  WHERE a.datname = current_database() AND a.pid <> pg_backend_pid() AND a.wait_event_type = 'Lock'`;

/** Samples lock waits until `stop` is called. */
function sampleWaits(databaseUrl: string): { stop: () => Promise<WaitSamples> } {
  const client = new pg.Client({ connectionString: databaseUrl });
  const found: WaitSamples = { samples: 0, meanWaiting: 0, maxWaiting: 0, onRow: {} };
  let total = 0;
  let running = true;
  const loop = (async () => {
    await client.connect();
    while (running) {
      const { rows } = await client.query<{ pid: number; what: string }>(WAITS_SQL);
      found.samples++;
      total += rows.length;
      found.maxWaiting = Math.max(found.maxWaiting, rows.length);
      for (const row of rows) found.onRow[row.what] = (found.onRow[row.what] ?? 0) + 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await client.end();
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      found.meanWaiting = found.samples > 0 ? total / found.samples : 0;
      return found;
    },
  };
}

/** Runs `count` tasks over `connections` loops, timing each. */
async function timed(count: number, connections: number, task: (i: number) => Promise<boolean>) {
  let next = 0;
  let failures = 0;
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < count) {
        const i = next++;
        const sent = performance.now();
        if (!(await task(i))) failures++;
        latencies.push(performance.now() - sent);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? 0;
  return { perSecond: count / seconds, p50Ms: at(0.5), p99Ms: at(0.99), failures };
}

async function productRun(databaseUrl: string, run: string, connections: number): Promise<Run> {
  const db = createPrismaClient(databaseUrl, connections);
  try {
    // Warm every connection (and its prepared statements) before the clock runs.
    await timed(connections * 4, connections, (i) => permit(db, `${run}w`, i));
    const waits = sampleWaits(databaseUrl);
    const figures = await timed(PERMITS, connections, (i) => permit(db, run, i));
    return { ...figures, waits: await waits.stop() };
  } finally {
    await db.$disconnect();
  }
}

async function permit(db: ReturnType<typeof createPrismaClient>, run: string, i: number): Promise<boolean> {
  const operationId = `${run}-op-${i}`;
  const result = await requestPermit(
    db,
    principals[i % PRODUCERS] as Principal,
    operationId,
    permitInput(operationId),
    SETTINGS,
  );
  return result.status === "permitted";
}

async function rawRun(databaseUrl: string, run: string, connections: number): Promise<Run> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: connections });
  try {
    const send = (prefix: string, i: number) => {
      const operationId = `${prefix}-op-${i}`;
      const input = permitInput(operationId);
      return pool
        .query({
          name: "raw_scale_permit",
          text: RAW_PERMIT,
          values: [
            producers[i % PRODUCERS],
            operationId,
            input.requestFingerprint,
            input.attemptId,
            input.hold.holdId,
            randomUUID(),
          ],
        })
        .then((result) => result.rowCount === 1);
    };
    await timed(connections * 4, connections, (i) => send(`${run}w`, i));
    const waits = sampleWaits(databaseUrl);
    const figures = await timed(PERMITS, connections, (i) => send(run, i));
    return { ...figures, waits: await waits.stop() };
  } finally {
    await pool.end();
  }
}

/** The gate as production runs it: each producer's sends limit far above the run's spend. */
async function configureGate(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO spend_limits (applies_to, currency, producer, per_hour_micros, per_day_micros, updated_by_id)
       SELECT 'sends', 'USD', p, 1000000000000000, 1000000000000000, '00000000-0000-4000-8000-000000000000'
       FROM unnest($1::text[]) p`,
      [producers],
    );
  } finally {
    await client.end();
  }
}

const describeWaits = (w: WaitSamples) =>
  `${w.samples} samples, mean ${w.meanWaiting.toFixed(2)} waiting, max ${w.maxWaiting}; by row: ${
    Object.entries(w.onRow)
      .sort((a, b) => b[1] - a[1])
      .map(([what, n]) => `${what} ${n}`)
      .join(", ") || "none"
  }`;

const part: BenchPart = {
  name: "permit-scale",
  async run(ctx) {
    const productUrl = await ctx.createDatabase("permit_scale");
    const rawUrl = await ctx.createDatabase("permit_scale_raw");
    await configureGate(productUrl);
    const run = randomBytes(4).toString("hex");
    const rows: BenchRow[] = [];
    const checks: BenchCheck[] = [];
    const results: Record<string, Run> = {};
    for (const connections of LEVELS) {
      ctx.log(`permit-scale: ${PERMITS} permits at ${connections} connections, product then raw…`);
      const product = await productRun(productUrl, `${run}c${connections}`, connections);
      const raw = await rawRun(rawUrl, `${run}c${connections}`, connections);
      results[connections] = product;
      ctx.log(
        `permit-scale ${connections}: product ${product.perSecond.toFixed(0)}/s p99 ${product.p99Ms.toFixed(1)} ms (${describeWaits(product.waits)}); raw ${raw.perSecond.toFixed(0)}/s p99 ${raw.p99Ms.toFixed(1)} ms (${describeWaits(raw.waits)})`,
      );
      const label = `raw SQL, the same rows, ${connections} connections`;
      const at = `${connections} connections, ${PRODUCERS} producers`;
      rows.push(
        {
          part: "permit-scale",
          metric: `send permits through the service, ${at}`,
          value: product.perSecond,
          unit: "permits/s",
          baseline: { label, value: raw.perSecond },
          better: "higher",
          target: ">= 0.8x raw",
        },
        {
          part: "permit-scale",
          metric: `send permits, p99, ${at}`,
          value: product.p99Ms,
          unit: "ms",
          baseline: { label, value: raw.p99Ms },
          better: "lower",
          target: "<= 1.5x raw",
        },
        {
          part: "permit-scale",
          metric: `backends waiting on a row lock per sample (mean), ${at}`,
          value: product.waits.meanWaiting,
          unit: "backends",
          better: "lower",
        },
        {
          part: "permit-scale",
          metric: `samples with a wait on audit_chain_heads, ${at}`,
          value: product.waits.onRow.audit_chain_heads ?? 0,
          unit: "waits",
          better: "lower",
          target: "0",
        },
      );
      checks.push({
        part: "permit-scale",
        name: `every permit at ${connections} connections was issued`,
        ok: product.failures === 0 && raw.failures === 0,
        detail: `product ${product.failures} not issued, raw ${raw.failures} not written; product waits: ${describeWaits(product.waits)}`,
      });
    }
    const [low, high] = LEVELS.map((n) => results[n] as Run);
    if (low && high)
      rows.push({
        part: "permit-scale",
        metric: `permits/s at ${LEVELS[1]} connections against ${LEVELS[0]}`,
        value: high.perSecond,
        unit: "permits/s",
        baseline: { label: `the product at ${LEVELS[0]} connections`, value: low.perSecond },
        better: "higher",
        target: ">= 1.0x (rises or holds)",
      });
    checks.push(await chainsIntact(productUrl));
    return { rows, checks };
  },
};

/** Every permit's event is on its operation's own chain, and no chain forked. */
async function chainsIntact(databaseUrl: string): Promise<BenchCheck> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ events: number; on_system: number; forks: number }>(
      `SELECT count(*)::int AS events,
              count(*) FILTER (WHERE operation_ref IS NULL)::int AS on_system,
              (SELECT count(*)::int FROM audit_chain_heads h
                WHERE h.chain_key LIKE 'operation:%'
                  AND h.seq <> (SELECT count(*) FROM audit_events e WHERE e.operation_ref = substr(h.chain_key, 11)::uuid)) AS forks
       FROM audit_events WHERE case_id IS NULL AND kind = 'permit_issued'`,
    );
    const row = rows[0] ?? { events: 0, on_system: -1, forks: -1 };
    return {
      part: "permit-scale",
      name: "every permit's event is on its operation's chain, each chain's head at its last event",
      ok: row.on_system === 0 && row.forks === 0 && row.events > 0,
      detail: `${row.events} permit events, ${row.on_system} on the system chain, ${row.forks} heads off their chain`,
    };
  } finally {
    await client.end();
  }
}

export default part;
