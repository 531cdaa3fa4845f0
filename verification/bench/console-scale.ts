import pg from "pg";
import { createPrismaClient, type PrismaClient } from "../../lib/db/client";
import type { Role } from "../../lib/domain/roles";
import type { Stage } from "../../lib/domain/stages";
import type { UserActor } from "../../lib/services/access/actor";
import { countCases } from "../../lib/services/case/count-cases";
import { cursorAfter, listCases } from "../../lib/services/case/list-cases";
import { getHeldByAge } from "../../lib/services/finance/finance-aging";
import { getExposure } from "../../lib/services/finance/finance-exposure";
import { getFinanceTotals } from "../../lib/services/finance/finance-totals";
import { overviewStats } from "../../lib/services/overview/overview-stats";
import { type ListCasesQuery, listCasesSchema } from "../../lib/validation/list-cases";
import { type AppServer, appServer, sessionCookie } from "./lib/app-server";
import { figuresDifferingFromScans } from "./lib/scale-checks";
import { capturedSql, replay, type Timing, timeAlone, timeSideBySide } from "./lib/scale-measure";
import { seedScale } from "./lib/scale-seed";
import { scaleTraffic } from "./lib/scale-traffic";
import type { BenchCheck, BenchPart, BenchRow } from "./lib/types";

/**
 * Part 5: the console at a million cases. The queue's list (filters, both sorts, a deep keyset page,
 * the search by provider job ID), the overview and the finance figures, each through the product's
 * service and as the very same SQL over plain pg (caught from the service's query log), p50/p95 over
 * 200 runs each; then the queue page over HTTP, signed in.
 */
const CASES = Number(process.env.BENCH_SCALE_CASES ?? 1_000_000);
const RUNS = 200;
const PAGE_RUNS = 200;

type Scenario = {
  name: string;
  run: (db: PrismaClient) => Promise<unknown>;
  limitMs: number;
};

async function makeUser(databaseUrl: string, email: string, roles: Role[]): Promise<UserActor> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO users (email, name, roles) VALUES ($1, $1, $2::"Role"[])
       ON CONFLICT (email) DO UPDATE SET roles = excluded.roles RETURNING id`,
      [email, roles],
    );
    return { kind: "user", userId: rows[0]?.id ?? "", email, name: email, roles, producers: null };
  } finally {
    await client.end();
  }
}

/** A keyset page deep in the default view: the cursor after the 100,000th open case, oldest first. */
async function deepCursor(pool: pg.Pool): Promise<string> {
  const { rows } = await pool.query<{
    id: string;
    opened_at: Date;
    held_micros: string;
    stage: Stage;
    provider: string;
  }>(
    `SELECT id, opened_at, held_micros, stage, provider FROM cases WHERE state <> 'resolved' ORDER BY opened_at, id OFFSET 100000 LIMIT 1`,
  );
  const row = rows[0];
  return row
    ? cursorAfter(
        {
          id: row.id,
          openedAt: row.opened_at,
          heldMicros: BigInt(row.held_micros),
          stage: row.stage,
          provider: row.provider,
          // Not read by the age order this cursor is for.
          lastAttemptAt: null,
        },
        "age",
      )
    : "";
}

function scenarios(actor: UserActor, deep: string, jobId: string): Scenario[] {
  const list = (query: Partial<ListCasesQuery>) => (db: PrismaClient) =>
    listCases(db, actor, listCasesSchema.parse(query));
  return [
    { name: "queue: open cases, oldest first", run: list({}), limitMs: 50 },
    { name: "queue: page after the 100,000th open case (keyset)", run: list({ cursor: deep }), limitMs: 50 },
    { name: "queue: one stage, largest amount first", run: list({ stage: "polling", sort: "amount" }), limitMs: 50 },
    {
      name: "queue: one provider, ready for the worker",
      run: list({ provider: "runway", state: "ready" }),
      limitMs: 50,
    },
    {
      name: "queue: older than 7 days and over $1, largest first",
      run: list({ minAgeSeconds: 7 * 86_400, minAmountMicros: 1_000_000, sort: "amount" }),
      limitMs: 50,
    },
    { name: "queue: search by provider job ID", run: list({ q: jobId }), limitMs: 50 },
    // Six digits from the middle of an ID: the few cases whose IDs contain them, through the trigram index.
    { name: "queue: search part of an ID (a few matches)", run: list({ q: jobId.slice(-7, -1) }), limitMs: 50 },
    // A prefix a tenth of a percent of all IDs share: its page is found in the view's first rows.
    { name: "queue: search part of an ID (thousands of matches)", run: list({ q: "scale-0001" }), limitMs: 50 },
    {
      name: "queue: count a search with thousands of matches (up to 10,000)",
      run: (db) => countCases(db, actor, listCasesSchema.parse({ q: "scale-0001" })),
      limitMs: 50,
    },
    {
      name: "queue: count the open cases (up to 10,000)",
      run: (db) => countCases(db, actor, listCasesSchema.parse({})),
      limitMs: 50,
    },
    {
      name: "overview figures",
      run: (db) => overviewStats(db, actor, { alertWindowMinutes: 60, alertThreshold: 5 }),
      limitMs: 100,
    },
    { name: "finance totals (currency, provider, model)", run: (db) => getFinanceTotals(db, actor), limitMs: 100 },
    { name: "finance exposure", run: (db) => getExposure(db, actor), limitMs: 100 },
    { name: "finance open holds by age", run: (db) => getHeldByAge(db, actor), limitMs: 100 },
  ];
}

async function pageTimes(server: AppServer, cookie: string, paths: string[]) {
  const rows: number[] = [];
  let failures = 0;
  let i = 0;
  const timing = await timeAlone(PAGE_RUNS, async () => {
    const response = await fetch(`${server.url}${paths[i++ % paths.length]}`, { headers: { cookie } });
    const html = await response.text();
    rows.push(html.split('data-testid="queue-row"').length - 1);
    if (response.status !== 200) failures++;
  });
  return { timing, failures, rows };
}

/**
 * The client as the server has it: Prisma reads NODE_ENV when a client is made, and outside
 * production it records the caller's stack on every query (for friendlier error messages), which
 * the served product never pays.
 */
function productionClient(databaseUrl: string): PrismaClient {
  const saved = process.env.NODE_ENV;
  Object.assign(process.env, { NODE_ENV: "production" });
  try {
    return createPrismaClient(databaseUrl, 10);
  } finally {
    Object.assign(process.env, { NODE_ENV: saved });
    if (saved === undefined) Reflect.deleteProperty(process.env, "NODE_ENV");
  }
}

const ms = (t: Timing) => `p50 ${t.p50.toFixed(1)} ms, p95 ${t.p95.toFixed(1)} ms`;

const part: BenchPart = {
  name: "console-scale",
  async run(ctx) {
    const server = await appServer(ctx, "console-scale");
    const databaseUrl = server.databaseUrl;
    const reviewer = await makeUser(databaseUrl, "scale-reviewer@example.com", ["reviewer"]);
    const actor = await makeUser(databaseUrl, "scale-operator@example.com", ["operator", "reviewer", "finance"]);
    ctx.log(`console-scale: seeding ${CASES.toLocaleString("en-US")} cases…`);
    const seed = await seedScale(databaseUrl, CASES, { reviewerId: reviewer.userId, financeId: actor.userId }, ctx.log);
    ctx.log(`console-scale: seeded in ${seed.seconds.toFixed(0)} s: ${JSON.stringify(seed.rows)}`);

    const db = productionClient(databaseUrl);
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
    const rows: BenchRow[] = [
      {
        part: "console-scale",
        metric: `seed ${CASES.toLocaleString("en-US")} cases in SQL (rows, running totals, indexes rebuilt, keys checked)`,
        value: seed.seconds,
        unit: "s",
        better: "lower",
        target: "< 60 s",
      },
    ];
    // A send permit of the producer seam's part, on the same server, has its operation, attempt and hold and no case.
    const withCase = (rows?: number) => (rows ?? 0) - (seed.rows.sends_without_case ?? 0);
    const checks: BenchCheck[] = [
      {
        part: "console-scale",
        name: `seeded ${CASES.toLocaleString("en-US")} cases, each with operation, attempt, hold and reserve entry (beside the sends earlier parts left without a case)`,
        ok:
          (seed.rows.cases ?? 0) >= CASES &&
          seed.rows.cases === withCase(seed.rows.holds) &&
          seed.rows.cases === withCase(seed.rows.operations) &&
          seed.rows.cases === withCase(seed.rows.attempts) &&
          (seed.rows.ledger_entries ?? 0) >= CASES,
        detail: JSON.stringify(seed.rows),
      },
      {
        part: "console-scale",
        name: "every seeded row's foreign keys point at a row",
        ok: Object.values(seed.orphans).every((n) => n === 0),
        detail: JSON.stringify(seed.orphans),
      },
    ];
    try {
      const { rows: job } = await pool.query<{ provider_job_id: string }>(
        `SELECT provider_job_id FROM cases WHERE state <> 'resolved' AND provider_job_id IS NOT NULL
         ORDER BY opened_at DESC LIMIT 1 OFFSET 5000`,
      );
      for (const scenario of scenarios(actor, await deepCursor(pool), job[0]?.provider_job_id ?? "")) {
        const statements = await capturedSql(databaseUrl, scenario.run);
        const [service, raw] = await timeSideBySide(RUNS, () => scenario.run(db), replay(pool, statements));
        ctx.log(`console-scale: ${scenario.name}: service ${ms(service)}; raw ${ms(raw)}`);
        const percentile = (at: "p50" | "p95", target?: string): BenchRow => ({
          part: "console-scale",
          metric: `${scenario.name}, ${at}`,
          value: service[at],
          unit: "ms",
          baseline: { label: "same SQL, raw pg", value: raw[at] },
          better: "lower",
          ...(target ? { target } : {}),
        });
        rows.push(percentile("p50"), percentile("p95", `<= 1.3x raw, < ${scenario.limitMs} ms`));
      }

      const cookie = await sessionCookie(server, {
        id: actor.userId,
        email: actor.email,
        name: actor.name,
        roles: actor.roles,
      });
      const paths = [
        "/queue",
        "/queue?stage=polling&sort=amount",
        "/queue?provider=runway&state=ready",
        `/queue?q=${job[0]?.provider_job_id}`,
      ];
      const page = await pageTimes(server, cookie, paths);
      ctx.log(`console-scale: GET /queue ${ms(page.timing)} (${page.failures} failures)`);
      rows.push({
        part: "console-scale",
        metric: "GET /queue signed in (4 views in turn), p95",
        value: page.timing.p95,
        unit: "ms",
        better: "lower",
        target: "< 300 ms",
      });
      checks.push({
        part: "console-scale",
        name: "every queue page answered 200 with its rows (50 on a full view, 1 for the search)",
        ok: page.failures === 0 && page.rows.every((n, i) => n === (i % paths.length === 3 ? 1 : 50)),
        detail: `${page.failures} failures; rows per view ${[...new Set(page.rows)].join(", ")}`,
      });

      // Changes through the services after the load, then every figure against full scans of the
      // rows, which are also what the figures cost before the running totals.
      const traffic = await scaleTraffic(db, { reviewer, finance: actor });
      const { differing, scanMs } = await figuresDifferingFromScans(db, actor, new Date());
      ctx.log(
        `console-scale: full scans: overview ${scanMs.overview.toFixed(0)} ms, finance ${scanMs.finance.toFixed(0)} ms`,
      );
      rows.push(
        {
          part: "console-scale",
          metric: "overview by full scans (the old queries; money over time in one pass), one run",
          value: scanMs.overview,
          unit: "ms",
          better: "lower",
        },
        {
          part: "console-scale",
          metric: "finance totals, exposure and aging by full scans (the old queries), one run",
          value: scanMs.finance,
          unit: "ms",
          better: "lower",
        },
      );
      checks.push({
        part: "console-scale",
        name: "overview and finance figures equal full scans of the million rows (after further changes)",
        ok: differing.length === 0,
        detail: differing.length === 0 ? `all figures equal; ${traffic}` : `differing: ${differing.join(", ")}`,
      });
      return { rows, checks };
    } finally {
      await db.$disconnect();
      await pool.end();
    }
  },
};

export default part;
