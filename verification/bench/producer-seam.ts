import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import { Webhook } from "standardwebhooks";
import { appServer, BENCH_REPLICATE_WEBHOOK_SECRET, producerKey } from "./lib/app-server";
import { type LoadRequest, type LoadResult, postLoad } from "./lib/post-load";
import { RAW_PERMIT } from "./lib/raw-permit";
import type { BenchCheck, BenchPart, BenchRow } from "./lib/types";

/**
 * The producer seam over HTTP against the app server (16 connections): send permits for new
 * operations, the producer's `accepted` report on each, and signed provider webhooks of which half
 * are duplicates, each next to the rows it writes put there by one raw statement per request over a
 * pg pool of 16. The send gate is on (decision 037): the producer has a spend limit on its sends,
 * high enough never to refuse, and Replicate has an unknown-outcome breaker, so every permit locks
 * and takes the limit and reads the breaker as in production.
 */
const PERMITS = Number(process.env.BENCH_PERMITS ?? 5_000);
const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS ?? 10_000);
const CONNECTIONS = 16;
const PRODUCER = "bench-seam-shop";

type Request = LoadRequest;
type Figures = Pick<LoadResult, "count" | "seconds" | "perSecond" | "p50Ms" | "p99Ms" | "statuses">;
const fire = (url: string, requests: Request[]) => postLoad(url, requests, CONNECTIONS);

async function rawRun<T>(
  databaseUrl: string,
  items: T[],
  text: string,
  values: (item: T) => unknown[],
): Promise<Figures> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: CONNECTIONS });
  try {
    const clients = await Promise.all(Array.from({ length: CONNECTIONS }, () => pool.connect()));
    for (const client of clients) client.release();
    let next = 0;
    const latencies: number[] = [];
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (next < items.length) {
          const item = items[next++] as T;
          const sent = performance.now();
          await pool.query({
            name: `raw_${createHash("sha1").update(text).digest("hex").slice(0, 8)}`,
            text,
            values: values(item),
          });
          latencies.push(performance.now() - sent);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? 0;
    return {
      count: items.length,
      seconds,
      perSecond: items.length / seconds,
      p50Ms: at(0.5),
      p99Ms: at(0.99),
      statuses: {},
    };
  } finally {
    await pool.end();
  }
}

/** A report's writes: the permit accepted with its job, the attempt's job, the audit event. */
const RAW_REPORT = `
WITH p AS (
  UPDATE send_permits sp SET status = 'accepted', provider_job_id = $3, reported_at = now(),
         last_report = jsonb_build_object('outcome', 'accepted', 'token', 1)
  FROM operations o, attempts a
  WHERE o.producer = $1 AND o.operation_id = $2 AND sp.operation_ref = o.id AND a.id = sp.attempt_ref
    AND sp.status = 'live' AND sp.token = 1
  RETURNING sp.attempt_ref, sp.operation_ref
), att AS (
  UPDATE attempts SET provider_job_id = $3 FROM p WHERE attempts.id = p.attempt_ref
)
INSERT INTO audit_events (operation_ref, actor_kind, actor_id, actor_label, kind, after)
SELECT operation_ref, 'api_key', $4, 'api key ' || $1, 'permit_accepted', jsonb_build_object('providerJobId', $3::text) FROM p`;

/** A webhook's row, once per event (a duplicate's insert does nothing). */
const RAW_WEBHOOK = `
INSERT INTO provider_webhooks (provider, webhook_id, provider_job_id, status_kind, provider_status, signed_at, outcome, detail)
SELECT 'replicate', $1, $2, 'running', 'processing', now(), 'unmatched', '{"kind":"running"}'::jsonb
WHERE NOT EXISTS (SELECT 1 FROM attempts WHERE provider = 'replicate' AND provider_job_id = $2)
ON CONFLICT (provider, webhook_id) DO NOTHING`;

/**
 * An owned job's completion, as the product writes it: the webhook's row naming the permit, the
 * accepted permit completed, its hold settled with a settle entry, the permit's audit event.
 */
const RAW_OWNED_WEBHOOK = `
WITH p AS (
  UPDATE send_permits sp SET status = 'completed', reported_at = now(),
         last_report = jsonb_build_object('outcome', 'completed', 'webhookId', $1::text)
  FROM attempts a
  WHERE a.provider = 'replicate' AND a.provider_job_id = $2 AND sp.attempt_ref = a.id AND sp.status = 'accepted'
  RETURNING sp.id, sp.hold_ref, sp.operation_ref
), kept AS (
  INSERT INTO provider_webhooks (provider, webhook_id, provider_job_id, status_kind, provider_status, signed_at,
                                 outcome, note, detail, permit_ref)
  SELECT 'replicate', $1, $2, 'completed', 'succeeded', now(), 'permit_reported', 'permit completed',
         '{"kind":"completed"}'::jsonb, p.id FROM p
  ON CONFLICT (provider, webhook_id) DO NOTHING
), settled AS (
  UPDATE holds h SET status = 'settled', settled_micros = h.amount_micros, released_micros = 0, resolved_at = now(),
         decision_note = 'settled on the replicate webhook'
  FROM p WHERE h.id = p.hold_ref AND h.status = 'held'
  RETURNING h.id, h.amount_micros
), entries AS (
  INSERT INTO ledger_entries (hold_ref, kind, amount_micros, actor_label)
  SELECT id, 'settle', amount_micros, 'replicate webhook (signature verified)' FROM settled
)
INSERT INTO audit_events (operation_ref, actor_kind, actor_id, actor_label, kind, after)
SELECT operation_ref, 'system', 'replicate-webhook:' || $1, 'replicate webhook (signature verified)', 'permit_completed',
       jsonb_build_object('holdSettledMicros', 500000) FROM p`;

function permitRequests(run: string, secret: string): Request[] {
  return Array.from({ length: PERMITS }, (_, i) => {
    const operationId = `${run}-op-${i}`;
    return {
      path: `/api/v1/operations/${operationId}/attempts`,
      headers: { authorization: `Bearer ${secret}` },
      body: JSON.stringify({
        attemptId: `${operationId}-a1`,
        requestFingerprint: `sha256:${createHash("sha256").update(operationId).digest("hex")}`,
        provider: "replicate",
        model: "minimax/video-01",
        hold: { holdId: `hold-${operationId}`, amountMicros: 500_000, currency: "USD" },
        sendDeadline: new Date(Date.now() + 20 * 60_000).toISOString(),
      }),
    };
  });
}

/** The producer's `accepted` report on each permit, with the job the provider returned. */
function reportRequests(run: string, secret: string): Request[] {
  return Array.from({ length: PERMITS }, (_, i) => {
    const operationId = `${run}-op-${i}`;
    return {
      path: `/api/v1/attempts/${operationId}-a1/outcome`,
      headers: { authorization: `Bearer ${secret}` },
      body: JSON.stringify({
        operationId,
        token: 1,
        outcome: "accepted",
        providerJobId: `${run}-sent-${i}`,
        evidence: { summary: "create returned 201", observedAt: new Date().toISOString() },
      }),
    };
  });
}

/** The gate as production runs it: a sends limit far above the run's spend, and Replicate's breaker. */
async function configureGate(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const by = "00000000-0000-4000-8000-000000000000";
    await client.query(
      `INSERT INTO spend_limits (applies_to, currency, producer, per_hour_micros, per_day_micros, updated_by_id)
       VALUES ('sends', 'USD', $1, 1000000000000000, 1000000000000000, $2)`,
      [PRODUCER, by],
    );
    await client.query(
      `INSERT INTO provider_breakers (provider, unknown_percent, window_seconds, min_outcomes, updated_by_id)
       VALUES ('replicate', 50, 600, 1000, $1)`,
      [by],
    );
  } finally {
    await client.end();
  }
}

/** A Replicate webhook signed as Replicate signs it (Standard Webhooks), for one event. */
function signedWebhook(signer: Webhook, id: string, prediction: Record<string, unknown>): Request {
  const now = new Date();
  const body = JSON.stringify(prediction);
  const headers = {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
    "webhook-signature": signer.sign(id, now, body),
  };
  return { path: "/api/v1/provider-webhooks/replicate", body, headers };
}

/** One event per job nobody owns (sent again as they are, they are a provider's retries). */
function unownedWebhooks(run: string): Request[] {
  const signer = new Webhook(BENCH_REPLICATE_WEBHOOK_SECRET);
  return Array.from({ length: WEBHOOKS }, (_, i) =>
    signedWebhook(signer, `msg_${run}_${i}`, {
      id: `${run}-job-${i}`,
      status: "processing",
      output: null,
      model: "minimax/video-01",
    }),
  );
}

/** The completion of each job the run's accepted reports recorded: each permit completes, its hold settles. */
function ownedWebhooks(run: string): Request[] {
  const signer = new Webhook(BENCH_REPLICATE_WEBHOOK_SECRET);
  return Array.from({ length: PERMITS }, (_, i) =>
    signedWebhook(signer, `msg_${run}_owned_${i}`, {
      id: `${run}-sent-${i}`,
      status: "succeeded",
      output: `https://replicate.delivery/bench/${run}-${i}.mp4`,
      model: "minimax/video-01",
    }),
  );
}

const part: BenchPart = {
  name: "producer-seam",
  async run(ctx) {
    const server = await appServer(ctx, "producer-seam");
    const key = await producerKey(server, PRODUCER);
    await configureGate(server.databaseUrl);
    const rawUrl = await ctx.createDatabase("producer_seam_raw");
    const run = randomBytes(4).toString("hex");
    const figures = (f: Figures) =>
      `${f.perSecond.toFixed(0)}/s, p50 ${f.p50Ms.toFixed(1)} ms, p99 ${f.p99Ms.toFixed(1)} ms`;

    // Warm both sides before any clock runs.
    await fire(server.url, permitRequests(`${run}w`, key.secret).slice(0, 200));
    await fire(server.url, reportRequests(`${run}w`, key.secret).slice(0, 200));
    const permits = permitRequests(run, key.secret);
    ctx.log(`producer-seam: ${PERMITS} permits over HTTP…`);
    const httpPermits = await fire(server.url, permits);
    const rawPermits = await rawRun(rawUrl, permits, RAW_PERMIT, (r) => {
      const body = JSON.parse(r.body) as { attemptId: string; requestFingerprint: string; hold: { holdId: string } };
      const operationId = r.path.split("/")[4] ?? "";
      return [PRODUCER, operationId, body.requestFingerprint, body.attemptId, body.hold.holdId, key.id];
    });
    ctx.log(
      `producer-seam: permits HTTP ${figures(httpPermits)} ${JSON.stringify(httpPermits.statuses)}; raw ${figures(rawPermits)}`,
    );

    const reports = reportRequests(run, key.secret);
    ctx.log(`producer-seam: ${PERMITS} accepted reports over HTTP…`);
    const httpReports = await fire(server.url, reports);
    const rawReports = await rawRun(rawUrl, reports, RAW_REPORT, (r) => {
      const body = JSON.parse(r.body) as { operationId: string; providerJobId: string };
      return [PRODUCER, body.operationId, body.providerJobId, key.id];
    });
    ctx.log(
      `producer-seam: reports HTTP ${figures(httpReports)} ${JSON.stringify(httpReports.statuses)}; raw ${figures(rawReports)}`,
    );
    const httpPair = pairOf(httpPermits, httpReports);
    const rawPair = pairOf(rawPermits, rawReports);
    const ratio = (product: number, raw: number) => `${(product / raw).toFixed(2)}x`;
    ctx.log(
      `producer-seam: permit + report per paid create, HTTP ${figures(httpPair)}; raw ${figures(rawPair)}; ` +
        `throughput ${ratio(httpPair.perSecond, rawPair.perSecond)} raw, p50 ${ratio(httpPair.p50Ms, rawPair.p50Ms)} raw, ` +
        `p99 ${ratio(httpPair.p99Ms, rawPair.p99Ms)} raw (permits p99 ${ratio(httpPermits.p99Ms, rawPermits.p99Ms)}, ` +
        `reports p99 ${ratio(httpReports.p99Ms, rawReports.p99Ms)})`,
    );

    // Webhooks: events for jobs nobody owns, the same events again (the provider's retries), then
    // the completion of every job the reports above recorded, each against its own raw statement.
    const rawHook = (r: Request) => [r.headers["webhook-id"], (JSON.parse(r.body) as { id: string }).id];
    await fire(server.url, unownedWebhooks(`${run}w`).slice(0, 200));
    const unowned = unownedWebhooks(run);
    ctx.log(`producer-seam: ${WEBHOOKS} signed webhooks for unowned jobs over HTTP…`);
    const httpUnowned = await fire(server.url, unowned);
    const rawUnowned = await rawRun(rawUrl, unowned, RAW_WEBHOOK, rawHook);
    ctx.log(
      `producer-seam: unowned webhooks HTTP ${figures(httpUnowned)} ${JSON.stringify(httpUnowned.statuses)}; raw ${figures(rawUnowned)}`,
    );
    ctx.log(`producer-seam: the same ${WEBHOOKS} webhooks again (duplicates)…`);
    const httpDuplicates = await fire(server.url, unowned);
    const rawDuplicates = await rawRun(rawUrl, unowned, RAW_WEBHOOK, rawHook);
    ctx.log(
      `producer-seam: duplicate webhooks HTTP ${figures(httpDuplicates)} ${JSON.stringify(httpDuplicates.statuses)}; raw ${figures(rawDuplicates)}`,
    );
    const owned = ownedWebhooks(run);
    ctx.log(`producer-seam: ${PERMITS} completions of owned jobs over HTTP…`);
    const httpOwned = await fire(server.url, owned);
    const rawOwned = await rawRun(rawUrl, owned, RAW_OWNED_WEBHOOK, rawHook);
    ctx.log(
      `producer-seam: owned webhooks HTTP ${figures(httpOwned)} ${JSON.stringify(httpOwned.statuses)}; raw ${figures(rawOwned)}`,
    );
    for (const [what, http, raw] of [
      ["unowned", httpUnowned, rawUnowned],
      ["duplicates", httpDuplicates, rawDuplicates],
      ["owned", httpOwned, rawOwned],
    ] as const) {
      ctx.log(`producer-seam: webhooks, ${what}: ${(http.perSecond / raw.perSecond).toFixed(2)}x raw`);
    }

    const counted = await countRows(server.databaseUrl, run);
    const label = "raw INSERT … ON CONFLICT, pg pool of 16";
    const seam = (what: string, http: Figures, raw: Figures): BenchRow[] => [
      {
        part: "producer-seam",
        metric: `${what} (16 connections, send gate on)`,
        value: http.perSecond,
        unit: "req/s",
        baseline: { label, value: raw.perSecond },
        better: "higher",
        target: ">= 0.8x raw",
      },
      {
        part: "producer-seam",
        metric: `${what}, p50`,
        value: http.p50Ms,
        unit: "ms",
        baseline: { label, value: raw.p50Ms },
        better: "lower",
      },
      {
        part: "producer-seam",
        metric: `${what}, p99`,
        value: http.p99Ms,
        unit: "ms",
        baseline: { label, value: raw.p99Ms },
        better: "lower",
        target: "<= 1.5x raw",
      },
    ];
    const rows: BenchRow[] = [
      ...seam(
        `POST /api/v1/operations/{id}/attempts, ${PERMITS.toLocaleString("en-US")} new permits`,
        httpPermits,
        rawPermits,
      ),
      ...seam(
        `POST /api/v1/attempts/{id}/outcome, ${PERMITS.toLocaleString("en-US")} accepted reports`,
        httpReports,
        rawReports,
      ),
      ...seam(`permit + accepted report, the pair per paid create (sums of the two phases)`, httpPair, rawPair),
      ...seam(
        `POST /api/v1/provider-webhooks/replicate, ${WEBHOOKS.toLocaleString("en-US")} signed webhooks for unowned jobs`,
        httpUnowned,
        rawUnowned,
      ),
      ...seam(
        `POST /api/v1/provider-webhooks/replicate, the same ${WEBHOOKS.toLocaleString("en-US")} again (duplicates)`,
        httpDuplicates,
        rawDuplicates,
      ),
      ...seam(
        `POST /api/v1/provider-webhooks/replicate, ${PERMITS.toLocaleString("en-US")} completions of accepted permits' jobs`,
        httpOwned,
        rawOwned,
      ),
    ];
    const checks: BenchCheck[] = [
      {
        part: "producer-seam",
        name: "every permit request answered 201, one permit and one hold each",
        ok: httpPermits.statuses["201"] === PERMITS && counted.permits === PERMITS && counted.holds === PERMITS,
        detail: `${JSON.stringify(httpPermits.statuses)}; ${counted.permits} permits, ${counted.holds} holds`,
      },
      {
        part: "producer-seam",
        name: "every report answered 200 and accepted its permit",
        ok: httpReports.statuses["200"] === PERMITS && counted.accepted === PERMITS,
        detail: `${JSON.stringify(httpReports.statuses)}; ${counted.accepted} permits accepted`,
      },
      {
        part: "producer-seam",
        name: "the spend limit counted every permit's hold today, and the breaker stayed closed",
        ok: counted.limitDay === counted.heldToday && !counted.paused,
        detail: `limit's day use ${counted.limitDay}, holds reserved today ${counted.heldToday}, paused ${counted.paused}`,
      },
      {
        part: "producer-seam",
        name: "every webhook answered 200 and each event was kept once",
        ok:
          httpUnowned.statuses["200"] === WEBHOOKS &&
          httpDuplicates.statuses["200"] === WEBHOOKS &&
          counted.webhooks === WEBHOOKS,
        detail: `${JSON.stringify(httpUnowned.statuses)}, again ${JSON.stringify(httpDuplicates.statuses)}; ${counted.webhooks} events kept`,
      },
      {
        part: "producer-seam",
        name: "every owned job's completion answered 200, completed its permit and settled its hold once",
        ok:
          httpOwned.statuses["200"] === PERMITS &&
          counted.ownedKept === PERMITS &&
          counted.completed === PERMITS &&
          counted.settleEntries === PERMITS,
        detail: `${JSON.stringify(httpOwned.statuses)}; ${counted.ownedKept} kept as permit_reported, ${counted.completed} permits completed, ${counted.settleEntries} settle entries`,
      },
    ];
    return { rows, checks };
  },
};

/**
 * The two calls every paid create costs a producer, from the two phases: creates per second when each
 * pays both (the phases' times added), and the latencies' sums (for the p99, an upper bound of the pair's).
 */
function pairOf(permit: Figures, report: Figures): Figures {
  const seconds = permit.seconds + report.seconds;
  return {
    count: permit.count,
    seconds,
    perSecond: permit.count / seconds,
    p50Ms: permit.p50Ms + report.p50Ms,
    p99Ms: permit.p99Ms + report.p99Ms,
    statuses: {},
  };
}

async function countRows(databaseUrl: string, run: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{
      permits: number;
      accepted: number;
      holds: number;
      webhooks: number;
      ownedKept: number;
      completed: number;
      settleEntries: number;
      limitDay: string;
      heldToday: string;
      paused: boolean;
    }>(
      `SELECT (SELECT count(*)::int FROM send_permits p JOIN operations o ON o.id = p.operation_ref
                WHERE o.operation_id LIKE $1 || '-op-%') AS permits,
              (SELECT count(*)::int FROM send_permits p JOIN operations o ON o.id = p.operation_ref
                -- Completed since, by the owned jobs' webhooks, which need the report's acceptance first.
                WHERE o.operation_id LIKE $1 || '-op-%' AND p.status IN ('accepted', 'completed')) AS accepted,
              (SELECT day_used_micros::text FROM spend_limits WHERE applies_to = 'sends' AND producer = $2) AS "limitDay",
              (SELECT coalesce(sum(amount_micros), 0)::text FROM holds h, spend_limits l
                WHERE l.applies_to = 'sends' AND l.producer = $2 AND h.producer = $2 AND h.created_at >= l.day_start) AS "heldToday",
              (SELECT EXISTS (SELECT 1 FROM pauses WHERE cause = 'breaker' AND resumed_at IS NULL AND until > now())) AS paused,
              (SELECT count(*)::int FROM holds WHERE hold_id LIKE 'hold-' || $1 || '-op-%') AS holds,
              (SELECT count(*)::int FROM provider_webhooks WHERE webhook_id LIKE 'msg\\_' || $1 || '\\_%'
                AND webhook_id NOT LIKE '%\\_owned\\_%') AS webhooks,
              (SELECT count(*)::int FROM provider_webhooks WHERE webhook_id LIKE 'msg\\_' || $1 || '\\_owned\\_%'
                AND outcome = 'permit_reported') AS "ownedKept",
              (SELECT count(*)::int FROM send_permits p JOIN operations o ON o.id = p.operation_ref
                WHERE o.operation_id LIKE $1 || '-op-%' AND p.status = 'completed') AS completed,
              (SELECT count(*)::int FROM ledger_entries e JOIN holds h ON h.id = e.hold_ref
                WHERE h.hold_id LIKE 'hold-' || $1 || '-op-%' AND e.kind = 'settle') AS "settleEntries"`,
      [run, PRODUCER],
    );
    const row = rows[0];
    if (!row) throw new Error("the count returned no row");
    return row;
  } finally {
    await client.end();
  }
}

export default part;
