import pg from "pg";
import { AUDIT_WALK_SQL, verifyAuditChains } from "../../lib/audit/verify-chain";
import type { BenchCheck, BenchContext, BenchPart, BenchRow } from "./lib/types";

/**
 * Part 7: the hash-chained audit log (decision 015). `npm run audit:verify`'s walk over a million
 * events on 100,000 case chains (plus the system chain), against reading the very same rows in the
 * same order through the same cursor and doing nothing with them, and against a plain unordered
 * scan; then what the chain costs an insert: 100,000 rows in one INSERT … SELECT and 10,000
 * single-row transactions, with the chain trigger against the table as it was before the chain.
 */
const PART = "audit-verify";
const EVENTS = Number(process.env.BENCH_AUDIT_EVENTS ?? 1_000_000);
const CASES = Math.max(1, Math.round(EVENTS / 10));
const SEED_BATCH = 100_000;
const BULK_INSERTS = Math.min(100_000, Math.floor(EVENTS / 20) * 5);
const SINGLE_INSERTS = Math.min(10_000, Math.floor(EVENTS / 50) * 5);
const BATCH = 5_000;
const ROUNDS = 5;

// Events spread over the cases round-robin (chains interleaved on disk, as real traffic leaves
// them), one in a hundred without a case (the system chain), JSON and labels of realistic size.
const seedSql = (table: string, from: number, to: number) => `
  INSERT INTO ${table} (case_id, episode, actor_kind, actor_id, actor_label, kind, before, after, evidence, created_at)
  SELECT CASE WHEN g % 100 = 0 THEN NULL ELSE c.id END, 1, 'worker', 'w-' || (g % 8), 'worker w-' || (g % 8),
         (ARRAY['parked', 'hold_reserved', 'note_added', 'approved', 'claimed'])[1 + g % 5],
         jsonb_build_object('stage', 'polling', 'state', 'ready', 'version', g % 7),
         jsonb_build_object('stage', 'polling', 'state', 'claimed', 'version', g % 7 + 1),
         jsonb_build_object('text', 'provider answered running after ' || g || ' ms', 'observedAt',
                            '2026-12-01T10:00:00Z', 'source', 'bench', 'attempt', g % 13),
         timestamptz '2026-11-01 00:00:00+00' + g * interval '1 second'
  FROM generate_series(${from}, ${to}) g
  JOIN bench_cases c ON c.n = g % ${CASES}`;

const PLAIN_TABLE = `CREATE TABLE audit_events_unchained (
    id BIGSERIAL PRIMARY KEY, case_id UUID, episode INTEGER, actor_kind "ActorKind" NOT NULL, actor_id TEXT,
    actor_label TEXT NOT NULL, kind TEXT NOT NULL, before JSONB, after JSONB, evidence JSONB,
    created_at TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP);
  CREATE INDEX ON audit_events_unchained (case_id, id);
  CREATE INDEX ON audit_events_unchained (kind, created_at)`;

async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await run();
  return { ms: performance.now() - started, value };
}

/** Reads every row the verifier reads, in batches through a cursor, and keeps none of them. */
async function readOnly(client: pg.Client, sql: string): Promise<number> {
  await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  await client.query(`DECLARE walk NO SCROLL CURSOR FOR ${sql}`);
  let rows = 0;
  for (;;) {
    const batch = await client.query(`FETCH ${BATCH} FROM walk`);
    rows += batch.rowCount ?? 0;
    if ((batch.rowCount ?? 0) < BATCH) break;
  }
  await client.query("COMMIT");
  return rows;
}

/** The verifier's walk, with the heap's growth sampled while it runs (it should stay flat). */
async function verifyMeasured(client: pg.Client) {
  const heapBefore = process.memoryUsage().heapUsed;
  let heapPeak = heapBefore;
  const sample = () => {
    heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
  };
  const timer = setInterval(sample, 50);
  try {
    const run = await timed(() => verifyAuditChains(client, { batchSize: BATCH, onProgress: sample }));
    return { ...run, heapGrowthMb: (heapPeak - heapBefore) / 2 ** 20 };
  } finally {
    clearInterval(timer);
  }
}

async function singleInserts(client: pg.Client, table: string, caseIds: string[], count: number): Promise<number> {
  const { ms } = await timed(async () => {
    for (let i = 0; i < count; i++) {
      await client.query({
        name: `single-${table}`,
        text: `INSERT INTO ${table} (case_id, episode, actor_kind, actor_id, actor_label, kind, evidence)
               VALUES ($1, 1, 'user', 'u-1', 'Ana Reviewer', 'note_added', $2::jsonb)`,
        values: [caseIds[i % caseIds.length], JSON.stringify({ text: `looked at the dashboard, note ${i}` })],
      });
    }
  });
  return ms;
}

export default {
  name: PART,
  async run(ctx: BenchContext) {
    const url = await ctx.createDatabase("audit_verify");
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const rows: BenchRow[] = [];
    const checks: BenchCheck[] = [];
    const per100k = (ms: number, events: number) => (ms / events) * 100_000;
    try {
      await client.query(
        `CREATE TEMPORARY TABLE bench_cases AS SELECT n, gen_random_uuid() AS id FROM generate_series(0, ${CASES - 1}) n`,
      );
      await client.query("CREATE INDEX ON bench_cases (n)");

      // What the chain costs an insert, measured first on equal footing (both tables as good as empty):
      // the table as it was before the chain, against the chained one.
      // Each side in alternating rounds, so neither has the machine's quieter or busier moments alone.
      await client.query(PLAIN_TABLE);
      const bulk = { plain: 0, chained: 0 };
      const single = { plain: 0, chained: 0 };
      const caseIds = (
        await client.query<{ id: string }>("SELECT id::text AS id FROM bench_cases LIMIT 1000")
      ).rows.map((r) => r.id);
      const bulkRound = BULK_INSERTS / ROUNDS;
      for (let round = 0; round < ROUNDS; round++) {
        const [from, to] = [round * bulkRound + 1, (round + 1) * bulkRound];
        bulk.plain += (await timed(() => client.query(seedSql("audit_events_unchained", from, to)))).ms;
        bulk.chained += (await timed(() => client.query(seedSql("audit_events", from, to)))).ms;
        single.plain += await singleInserts(client, "audit_events_unchained", caseIds, SINGLE_INSERTS / ROUNDS);
        single.chained += await singleInserts(client, "audit_events", caseIds, SINGLE_INSERTS / ROUNDS);
      }
      rows.push({
        part: PART,
        metric: `${BULK_INSERTS.toLocaleString("en-US")} events by INSERT … SELECT (${ROUNDS} rounds), with the chain`,
        value: bulk.chained / 1000,
        unit: "s",
        baseline: { label: "the table before the chain", value: bulk.plain / 1000 },
        better: "lower",
      });
      rows.push({
        part: PART,
        metric: `${SINGLE_INSERTS.toLocaleString("en-US")} single-row inserts, one transaction each (${ROUNDS} rounds), with the chain, per insert`,
        value: single.chained / SINGLE_INSERTS,
        unit: "ms",
        baseline: { label: "the table before the chain", value: single.plain / SINGLE_INSERTS },
        better: "lower",
      });
      await client.query("DROP TABLE audit_events_unchained");
      ctx.log(`${PART}: insert costs measured`);

      const seedFrom = BULK_INSERTS + 1;
      const seedTo = EVENTS - SINGLE_INSERTS;
      const seed = await timed(async () => {
        for (let from = seedFrom; from <= seedTo; from += SEED_BATCH) {
          await client.query(seedSql("audit_events", from, Math.min(seedTo, from + SEED_BATCH - 1)));
          ctx.log(
            `${PART}: seeded ${(Math.min(seedTo, from + SEED_BATCH - 1) + SINGLE_INSERTS).toLocaleString("en-US")} events`,
          );
        }
      });
      await client.query("VACUUM ANALYZE audit_events");
      await client.query("ANALYZE audit_chain_heads");
      rows.push({
        part: PART,
        metric: `seed the rest to ${EVENTS.toLocaleString("en-US")} events through the chain trigger (INSERT … SELECT, ${SEED_BATCH.toLocaleString("en-US")} per statement), per 100,000 events`,
        value: per100k(seed.ms, seedTo - seedFrom + 1) / 1000,
        unit: "s",
        better: "lower",
      });

      // Baselines first, so the verifier does not run on a cache the baselines warmed alone.
      const ordered = await timed(() => readOnly(client, AUDIT_WALK_SQL));
      const plain = await timed(() => readOnly(client, AUDIT_WALK_SQL.slice(0, AUDIT_WALK_SQL.indexOf("ORDER BY"))));
      const verify = await verifyMeasured(client);
      const verifyAgain = await verifyMeasured(client);
      const best = verify.ms <= verifyAgain.ms ? verify : verifyAgain;
      const report = best.value;
      ctx.log(
        `${PART}: verified ${report.events} events in ${verify.ms.toFixed(0)} and ${verifyAgain.ms.toFixed(0)} ms`,
      );
      rows.push(
        {
          part: PART,
          metric: `audit:verify over ${report.events.toLocaleString("en-US")} events, ${report.chains.toLocaleString("en-US")} chains (best of 2), per 100,000 events`,
          value: per100k(best.ms, report.events),
          unit: "ms",
          baseline: {
            label: "the same rows read in the same order through the same cursor, unchecked",
            value: per100k(ordered.ms, ordered.value),
          },
          better: "lower",
        },
        {
          part: PART,
          metric: "audit:verify, per 100,000 events, against a plain unordered scan",
          value: per100k(best.ms, report.events),
          unit: "ms",
          baseline: { label: "the same columns, unordered, same cursor", value: per100k(plain.ms, plain.value) },
          better: "lower",
        },
        {
          part: PART,
          metric: `audit:verify over ${report.events.toLocaleString("en-US")} events, whole walk`,
          value: best.ms / 1000,
          unit: "s",
          better: "lower",
        },
        {
          part: PART,
          metric: "audit:verify: JavaScript heap growth while walking (batches of 5,000)",
          value: Math.max(verify.heapGrowthMb, verifyAgain.heapGrowthMb),
          unit: "MB",
          better: "lower",
        },
      );
      checks.push({
        part: PART,
        name: "the verifier finds every seeded chain intact",
        ok: report.brokenChains === 0 && report.events === EVENTS && ordered.value === EVENTS,
        detail: `${report.events} events in ${report.chains} chains, ${report.brokenChains} broken; ${ordered.value} rows read by the baseline`,
      });

      // And the walk still sees an edit made by the owner in the middle of a million rows.
      const { rows: victims } = await client.query<{ id: string; case_id: string; chain_seq: number }>(
        `SELECT id::text, case_id::text, chain_seq FROM audit_events WHERE id = (SELECT min(id) + ${Math.floor(EVENTS / 2)} FROM audit_events)`,
      );
      const victim = victims[0];
      await client.query("BEGIN");
      await client.query("ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_update_delete");
      await client.query(`UPDATE audit_events SET kind = 'tampered' WHERE id = $1`, [victim?.id]);
      await client.query("ALTER TABLE audit_events ENABLE TRIGGER audit_events_no_update_delete");
      await client.query("COMMIT");
      const tampered = await verifyAuditChains(client, { batchSize: BATCH });
      const found = tampered.broken[0];
      checks.push({
        part: PART,
        name: "an owner's edit in the middle of the table is named",
        ok:
          tampered.brokenChains === 1 &&
          found?.eventId === victim?.id &&
          found?.caseId === (victim?.case_id ?? null) &&
          found?.problem === "edited_content",
        detail: `edited event ${victim?.id} (seq ${victim?.chain_seq}); the verifier named ${found ? `event ${found.eventId}, seq ${found.seq}: ${found.problem}` : "nothing"}`,
      });
    } finally {
      await client.end();
    }
    return { rows, checks };
  },
} satisfies BenchPart;
