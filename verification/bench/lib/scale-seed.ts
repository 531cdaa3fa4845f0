import pg from "pg";
import { foldStatDeltas } from "@/lib/db/stat-figures";
import { createPrismaClient } from "../../../lib/db/client";
import { runSessionTasks, type SessionTask } from "./session-tasks";

/**
 * A mature queue in SQL: `count` operations, each with its original attempt, its case, the case's
 * hold and ledger entries (reserve, and settle/release/overage once finance decided), and for live
 * approved work the decision and recovery action, all shaped as the services write them and inside
 * every CHECK constraint. Ages spread over 180 days, denser towards now; old cases are mostly
 * resolved, as in a queue people work through. Not written: audit events and the decisions and
 * actions of resolved cases (history no measured read touches).
 *
 * The load is what a data-only restore does: secondary indexes and statement triggers dropped, and
 * the other triggers off (session_replication_role = replica, which also skips per-row foreign-key
 * checks) while the rows go in, with the running-total deltas those rows stand for written
 * alongside; then VACUUM, every index and trigger made again from its own definition, and each
 * foreign key checked once over the whole set. Two sessions share the work (`runSessionTasks`),
 * each step starting once what it reads is in: on two cores every step is CPU-bound, and one
 * session left a core idle.
 */
export type SeedReport = {
  seconds: number;
  rows: Record<string, number>;
  /** Rows whose foreign key points nowhere, per table (all zero, or the load is wrong). */
  orphans: Record<string, number>;
};

// Truncating with date_bin from a UTC origin is integer arithmetic; date_trunc converts every value
// to the session's time zone and back.
const EPOCH = "'2000-01-01 00:00:00+00'::timestamptz";

// Draw k of row i: deterministic and uniform in [0, 1), the same in every session.
const draw = (k: number) => `(hashint8extended(i, ${k}) & 4503599627370495)::float8 / 4503599627370496`;

// Row i is the i-th oldest; ids and names grow with i, so the primary keys are appended to. Every
// column is computed once into a scratch table that the inserts then read; two sessions compute
// one half each.
const SEED_ROWS = (count: number, table: string, first: number, last: number) => `CREATE UNLOGGED TABLE ${table} AS
  WITH s AS (
    SELECT i, ${draw(1)} AS b, ${draw(2)} AS c, ${draw(3)} AS d, ${draw(4)} AS e, ${draw(5)} AS f, ${draw(6)} AS g,
           ${draw(7)} AS h, (${count} - i + 0.5)::float8 / ${count} AS a, lpad(to_hex(i), 12, '0') AS hex
    FROM generate_series(${first}, ${last}) AS i
  ), t AS (
    SELECT i, f, g, hex,
           date_bin('1 millisecond', now() - interval '2 minutes' - a * a * interval '180 days', ${EPOCH}) AS opened_at,
           b < 0.15::float8 + 0.8::float8 * a AS resolved,
           CASE WHEN c < 0.15 THEN 'submission_uncertain' WHEN c < 0.5 THEN 'polling'
                WHEN c < 0.7 THEN 'delivery' ELSE 'generation_failed' END AS stage0,
           (ARRAY['replicate', 'replicate', 'replicate', 'fal', 'fal', 'runway', 'luma', 'kling'])[1 + floor(e * 8)::int]
             AS provider,
           -- Log-uniform from $0.05 to $20: exp(ln 50,000 + d * ln 400), in float8 (numeric is slow).
           (round(exp(10.819778 + d * 5.991465) / 1000) * 1000)::bigint AS amount,
           CASE WHEN h < 0.8 THEN 'USD' WHEN h < 0.95 THEN 'EUR' ELSE 'GBP' END AS currency
    FROM s
  ), u AS (
    SELECT t.*,
           ('a0000000-0000-4000-8000-' || hex)::uuid AS op_ref, ('b0000000-0000-4000-8000-' || hex)::uuid AS att_ref,
           ('c0000000-0000-4000-8000-' || hex)::uuid AS case_id, ('d0000000-0000-4000-8000-' || hex)::uuid AS hold_ref,
           ('e0000000-0000-4000-8000-' || hex)::uuid AS decision_id,
           'scale-' || lpad(i::text, 8, '0') AS operation_id,
           CASE WHEN i % 4 = 0 THEN 'studio-app' ELSE 'shop-app' END AS producer,
           -- An uncertain submission is resolved through reconciliation: proven failed, then accepted.
           CASE WHEN resolved AND stage0 = 'submission_uncertain' THEN 'generation_failed' ELSE stage0 END::"Stage" AS stage,
           provider || CASE WHEN f < 0.6 THEN '-fast-720p' ELSE '-pro-1080p' END AS model,
           CASE WHEN resolved THEN 'resolved'
                WHEN stage0 IN ('polling', 'delivery') AND g < 0.10 THEN 'ready'
                WHEN stage0 IN ('polling', 'delivery') AND g < 0.15 THEN 'claimed'
                ELSE 'parked' END::"CaseState" AS state,
           -- Resolved: most holds settled (some partly, a few with overage), some released, some still
           -- waiting for finance (rule 6 keeps them held).
           CASE WHEN NOT resolved OR g >= 0.9 THEN 'held' WHEN g < 0.7 THEN 'settled' ELSE 'released' END::"HoldStatus"
             AS hold_status,
           date_bin('1 millisecond', opened_at + (now() - opened_at) * 0.3 * f, ${EPOCH}) AS resolved_at
    FROM t
  )
  SELECT u.*,
         CASE WHEN stage IN ('polling', 'delivery') OR (stage = 'generation_failed' AND stage0 <> 'submission_uncertain')
              THEN 'job-' || operation_id END AS job_id,
         CASE hold_status WHEN 'settled' THEN CASE WHEN f < 0.1 THEN amount * 6 / 10 ELSE amount END ELSE 0 END AS settled,
         CASE hold_status WHEN 'held' THEN 0 WHEN 'released' THEN amount ELSE CASE WHEN f < 0.1 THEN amount - amount * 6 / 10 ELSE 0 END END
           AS released,
         CASE WHEN hold_status = 'settled' AND f > 0.98 THEN amount / 5 ELSE 0 END AS overage
  FROM u`;

// What the loaded rows add to the running totals: the deltas the triggers would have appended had
// they been on, grouped per figure (lib/db/stat-figures.ts and the migration define them).
// The part's last check compares every figure with full scans of the rows.
const SEED_DELTAS = (
  seed: string,
) => `INSERT INTO stat_deltas (figure, stage, currency, provider, model, hold_status, "partial", hour, producer, count,
                                             micros, settled_micros, released_micros)
  WITH rows AS (
    SELECT stage, state, currency, provider, model, hold_status, amount, settled, released, overage, producer,
           date_bin('1 hour', opened_at, ${EPOCH}) AS opened_hour, date_bin('1 hour', resolved_at, ${EPOCH}) AS resolved_hour
    FROM ${seed}
  )
  SELECT 'open_cases', stage, NULL::text, NULL::text, NULL::text, NULL::"HoldStatus", NULL::boolean, opened_hour, producer,
         count(*), 0::numeric, 0::numeric, 0::numeric
  FROM rows WHERE state <> 'resolved' GROUP BY GROUPING SETS ((stage, opened_hour, producer), (stage, producer))
  UNION ALL
  SELECT 'case_held', stage, currency, NULL, NULL, NULL, NULL, NULL, producer, count(*), sum(amount), 0, 0
  FROM rows WHERE hold_status = 'held' GROUP BY stage, currency, producer
  UNION ALL
  SELECT 'resolved_held', stage, currency, NULL, NULL, NULL, NULL, NULL, producer, count(*), sum(amount), 0, 0
  FROM rows WHERE hold_status = 'held' AND state = 'resolved' GROUP BY stage, currency, producer
  UNION ALL
  SELECT 'holds', NULL, currency, provider, model, hold_status, hold_status = 'settled' AND released > 0, NULL, producer,
         count(*), sum(amount), sum(settled), sum(released)
  FROM rows GROUP BY 3, 4, 5, 6, 7, 9
  UNION ALL
  SELECT 'held_holds', NULL, currency, NULL, NULL, NULL, NULL, opened_hour, producer, count(*), sum(amount), 0, 0
  FROM rows WHERE hold_status = 'held' GROUP BY GROUPING SETS ((currency, opened_hour, producer), (currency, producer))
  UNION ALL
  SELECT 'exposure', NULL, currency, NULL, NULL, NULL, NULL, opened_hour, producer, count(*), sum(amount), 0, 0
  FROM rows WHERE hold_status = 'held' AND stage = 'submission_uncertain' AND state <> 'resolved'
  GROUP BY GROUPING SETS ((currency, opened_hour, producer), (currency, producer))
  UNION ALL
  SELECT 'ledger_held', NULL, currency, NULL, NULL, NULL, NULL, hour, producer, sum(n), sum(micros), 0, 0
  FROM (
    SELECT currency, producer, opened_hour AS hour, count(*) AS n, sum(amount) AS micros FROM rows WHERE amount > 0
    GROUP BY 1, 2, 3
    UNION ALL
    SELECT currency, producer, resolved_hour, count(*), -sum(settled) FROM rows WHERE settled > 0 GROUP BY 1, 2, 3
    UNION ALL
    SELECT currency, producer, resolved_hour, count(*), -sum(released) FROM rows WHERE released > 0 GROUP BY 1, 2, 3
    UNION ALL
    SELECT currency, producer, resolved_hour, count(*), 0 FROM rows WHERE overage > 0 GROUP BY 1, 2, 3
  ) AS entries
  GROUP BY GROUPING SETS ((currency, hour, producer), (currency, producer))
  UNION ALL
  SELECT 'overage', NULL, currency, provider, model, NULL, NULL, NULL, producer, count(*), sum(overage), 0, 0
  FROM rows WHERE overage > 0 GROUP BY currency, provider, model, producer`;

const LOADS = (reviewerId: string, financeId: string, seed: string): Record<string, string> => ({
  operations: `INSERT INTO operations (id, producer, operation_id, provider, model, request_fingerprint, request_summary,
                                       created_at)
    SELECT op_ref, producer, operation_id, provider, model, 'sha256:' || lpad(hex, 64, '0'),
           '{"prompt_chars": 412, "duration_seconds": 5}', opened_at
    FROM ${seed}`,
  attempts: `INSERT INTO attempts (id, operation_ref, attempt_id, kind, provider, provider_job_id, submitted_at, created_at)
    SELECT att_ref, op_ref, operation_id || '-a1', 'original', provider, job_id, opened_at - interval '30 seconds', opened_at
    FROM ${seed}`,
  cases: `INSERT INTO cases (id, operation_ref, attempt_ref, producer, operation_id, attempt_id, provider, model, stage, state,
                             version, episode, provider_job_id, registered_stage, registered_job_id, registered_fingerprint,
                             held_micros, currency, last_evidence, poll_attempts, delivery_attempts, submitted_at, outcome,
                             opened_at, updated_at, resolved_at)
    SELECT case_id, op_ref, att_ref, producer, operation_id, operation_id || '-a1', provider, model, stage, state,
           CASE state WHEN 'parked' THEN 1 WHEN 'ready' THEN 2 WHEN 'claimed' THEN 3 ELSE 4 END, 1, job_id,
           stage0::"Stage", CASE WHEN stage0 = 'submission_uncertain' THEN NULL ELSE job_id END,
           'sha256:' || lpad(hex, 64, '0'), CASE WHEN hold_status = 'held' THEN amount ELSE 0 END, currency,
           '{"summary": "create call timed out after 30 s", "source": "shop-app"}',
           CASE WHEN stage = 'polling' THEN 5 ELSE 0 END, CASE WHEN stage = 'delivery' THEN 3 ELSE 0 END,
           opened_at - interval '30 seconds',
           CASE WHEN resolved THEN CASE WHEN stage = 'generation_failed' THEN 'failure_accepted' ELSE 'recovered' END END,
           opened_at, CASE WHEN resolved THEN resolved_at ELSE opened_at END, CASE WHEN resolved THEN resolved_at END
    FROM ${seed}`,
  holds: `INSERT INTO holds (id, hold_id, producer, case_id, attempt_ref, amount_micros, currency, status, settled_micros,
                             released_micros, decided_by_id, decision_note, created_at, resolved_at)
    SELECT hold_ref, 'hold-' || operation_id, producer, case_id, att_ref, amount, currency, hold_status, settled, released,
           CASE WHEN hold_status <> 'held' THEN '${financeId}'::uuid END,
           CASE WHEN hold_status <> 'held' THEN 'invoice matched' END, opened_at,
           CASE WHEN hold_status <> 'held' THEN resolved_at END
    FROM ${seed}`,
  // One pass: the reserve, then what finance booked when it decided. The entry's number is the id's
  // last digit, so the ids ascend in the order the rows go in.
  ledger_entries: `INSERT INTO ledger_entries (id, hold_ref, kind, amount_micros, flagged, note, actor_label, created_at)
    SELECT ('f0000000-0000-4000-8000-' || substr(hex, 2) || e.n)::uuid, hold_ref, e.kind, e.amount,
           e.kind = 'overage', e.note, e.actor, e.at
    FROM ${seed} CROSS JOIN LATERAL (VALUES
      (1, 'reserve'::"LedgerEntryKind", amount, NULL, 'api key ' || producer, opened_at),
      (2, 'settle', settled, 'invoice matched', 'finance@example.com', resolved_at),
      (3, 'release', released, 'invoice matched', 'finance@example.com', resolved_at),
      (4, 'overage', overage, 'invoice above hold', 'finance@example.com', resolved_at)
    ) AS e(n, kind, amount, note, actor, at)
    WHERE e.amount > 0`,
  // Approved, not yet finished work: the reviewer's decision and the live action (claimed ones leased).
  decisions: `INSERT INTO decisions (id, case_id, episode, kind, action_kind, reviewer_id, evidence, created_at,
                                     case_opened_at)
    SELECT decision_id, case_id, 1, 'approve',
           CASE WHEN stage = 'polling' THEN 'resume_poll' ELSE 'retry_delivery' END::"RecoveryActionKind",
           '${reviewerId}'::uuid, 'provider status checks exhausted; resume',
           date_bin('1 millisecond', opened_at + (now() - opened_at) * 0.5, ${EPOCH}), opened_at
    FROM ${seed} WHERE state IN ('ready', 'claimed')`,
  recovery_actions: `INSERT INTO recovery_actions (case_id, decision_id, kind, status, lease_owner, lease_until,
                                                     fencing_token, claim_count, ready_at, created_at)
    SELECT case_id, decision_id, CASE WHEN stage = 'polling' THEN 'resume_poll' ELSE 'retry_delivery' END::"RecoveryActionKind",
           state::text::"ActionStatus", CASE WHEN state = 'claimed' THEN 'scale-worker' END,
           CASE WHEN state = 'claimed' THEN now() + interval '1 hour' END,
           CASE WHEN state = 'ready' THEN 0 ELSE 1 END, CASE WHEN state = 'ready' THEN 0 ELSE 1 END, opened_at, opened_at
    FROM ${seed} WHERE state IN ('ready', 'claimed')`,
});

// The tables the seed loads, largest first, so the other session's shorter loads fill in around them.
const TABLES = ["cases", "ledger_entries", "operations", "holds", "attempts", "recovery_actions", "decisions"];

const ROW_COUNTS = `SELECT
  (SELECT count(*)::int FROM operations) AS operations, (SELECT count(*)::int FROM attempts) AS attempts,
  (SELECT count(*)::int FROM cases) AS cases, (SELECT count(*)::int FROM holds) AS holds,
  (SELECT count(*)::int FROM ledger_entries) AS ledger_entries, (SELECT count(*)::int FROM decisions) AS decisions,
  (SELECT count(*)::int FROM recovery_actions) AS recovery_actions,
  (SELECT count(*)::int FROM send_permits WHERE case_ref IS NULL) AS sends_without_case`;

// The foreign keys the load did not check row by row: per table, each referencing column and the
// table it points into. Checked once over the whole set, once both sides' indexes are built: the
// rows whose reference points nowhere, found by merging the two sorted indexes.
const REFERENCES: Record<string, [column: string, into: string][]> = {
  attempts: [["operation_ref", "operations"]],
  cases: [
    ["operation_ref", "operations"],
    ["attempt_ref", "attempts"],
  ],
  holds: [
    ["case_id", "cases"],
    ["attempt_ref", "attempts"],
  ],
  ledger_entries: [["hold_ref", "holds"]],
  decisions: [
    ["case_id", "cases"],
    ["reviewer_id", "users"],
  ],
  recovery_actions: [
    ["case_id", "cases"],
    ["decision_id", "decisions"],
  ],
};

// Each seeding session: no flush wait per statement, room to sort and hash in memory, one core per
// index build (two sessions already use both), and triggers off (which also skips the per-row
// foreign-key checks).
const SESSION_SETUP = [
  "SET synchronous_commit = off",
  "SET work_mem = '256MB'",
  "SET maintenance_work_mem = '256MB'",
  "SET max_parallel_maintenance_workers = 0",
  "SET session_replication_role = replica",
  // The key checks then merge sorted indexes instead of hashing a million keys; no other step joins.
  "SET enable_hashjoin = off",
];

export async function seedScale(
  databaseUrl: string,
  count: number,
  people: { reviewerId: string; financeId: string },
  log: (message: string) => void,
): Promise<SeedReport> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // Secondary indexes (unique ones too: the load's keys are unique by construction, and the
    // rebuild proves it). Primary keys stay: the load appends to them in order.
    const { rows: indexes } = await client.query<{ name: string; table: string; def: string }>(
      `SELECT i.indexname AS name, i.tablename AS table, i.indexdef AS def FROM pg_indexes i
       WHERE i.schemaname = 'public' AND i.tablename = ANY($1)
         AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname AND c.contype = 'p')
       ORDER BY i.indexname`,
      [TABLES],
    );
    // Foreign keys that lean on one of those indexes (a case names its own operation's attempt
    // through a unique index on attempts) go first, and come back once the indexes are rebuilt.
    const { rows: leaning } = await client.query<{ name: string; table: string; def: string }>(
      `SELECT c.conname AS name, c.conrelid::regclass::text AS table, pg_get_constraintdef(c.oid) AS def
       FROM pg_constraint c WHERE c.contype = 'f' AND c.conindid::regclass::text = ANY($1)`,
      [indexes.map((index) => index.name)],
    );
    for (const fk of leaning) await client.query(`ALTER TABLE ${fk.table} DROP CONSTRAINT "${fk.name}"`);
    for (const index of indexes) await client.query(`DROP INDEX "${index.name}"`);
    // Triggers with transition tables: turned off by the session's role they do not fire, but
    // PostgreSQL still copies every inserted row into their transition table (on the cases load
    // 400 MB of temporary files and about a third of its time). Made again from their own
    // definitions once the rows are in.
    const { rows: triggers } = await client.query<{ name: string; table: string; def: string }>(
      `SELECT t.tgname AS name, c.relname AS table, pg_get_triggerdef(t.oid) AS def
       FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
       WHERE c.relnamespace = 'public'::regnamespace AND c.relname = ANY($1) AND NOT t.tgisinternal
         AND (t.tgnewtable IS NOT NULL OR t.tgoldtable IS NOT NULL)`,
      [TABLES],
    );
    for (const trigger of triggers) await client.query(`DROP TRIGGER "${trigger.name}" ON "${trigger.table}"`);
    const half = Math.ceil(count / 2);
    const orphans: Record<string, number> = {};
    const indexesOf = (table: string) => indexes.filter((index) => index.table === table);
    // Each table takes the first half's rows, then the second's: its primary key is appended to.
    const loadsOf = (part: 1 | 2): SessionTask[] => {
      const loads = LOADS(people.reviewerId, people.financeId, `seed_${part}`);
      const after = (table: string) => [`rows ${part}`, ...(part === 2 ? [`${table} 1`] : [])];
      return [
        ...TABLES.map((table) => ({ label: `${table} ${part}`, sql: loads[table] ?? "", after: after(table) })),
        { label: `running-total deltas ${part}`, sql: SEED_DELTAS(`seed_${part}`), after: [`rows ${part}`] },
      ];
    };
    const loads = [...loadsOf(1), ...loadsOf(2)];
    const tasks: SessionTask[] = [
      { label: "rows 1", sql: SEED_ROWS(count, "seed_1", 1, half) },
      { label: "rows 2", sql: SEED_ROWS(count, "seed_2", half + 1, count) },
      ...loads,
      { label: "drop rows", sql: "DROP TABLE seed_1, seed_2", after: loads.map((task) => task.label) },
      // The visibility map, as autovacuum would leave it: once every load is in, so no statement
      // still running can hide a row from the others, and before the index builds read the pages.
      ...TABLES.map((table) => ({
        label: `VACUUM ${table}`,
        sql: `VACUUM (ANALYZE) ${table}`,
        after: ["drop rows"],
      })),
      ...TABLES.flatMap((table) =>
        indexesOf(table).map((index) => ({ label: index.name, sql: index.def, after: [`VACUUM ${table}`] })),
      ),
      ...Object.entries(REFERENCES).flatMap(([table, references]) =>
        references.map(([column, into]) => ({
          label: `keys of ${table}.${column}`,
          // A NULL reference points nowhere by design (a send permit's hold has no case yet).
          sql: `SELECT count(*)::int AS n FROM ${table} r
                WHERE r.${column} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ${into} t WHERE t.id = r.${column})`,
          after: [...indexesOf(table).map((index) => index.name), ...(TABLES.includes(into) ? [`VACUUM ${into}`] : [])],
          rows: (rows: Record<string, unknown>[]) => {
            orphans[table] = (orphans[table] ?? 0) + Number(rows[0]?.n);
          },
        })),
      ),
    ];
    await runSessionTasks(databaseUrl, tasks, {
      sessions: 2,
      setup: SESSION_SETUP,
      done: (label, seconds) => log(`seed: ${label} ${seconds.toFixed(1)} s`),
    });
    for (const trigger of triggers) await client.query(trigger.def);
    for (const fk of leaning) await client.query(`ALTER TABLE ${fk.table} ADD CONSTRAINT "${fk.name}" ${fk.def}`);
    const prisma = createPrismaClient(databaseUrl, 1);
    await foldStatDeltas(prisma).finally(() => prisma.$disconnect());
    await client.query("VACUUM (ANALYZE) stat_totals");
    const rows = (await client.query<Record<string, number>>(ROW_COUNTS)).rows[0] ?? {};
    return { seconds: (performance.now() - started) / 1000, rows, orphans };
  } finally {
    await client.end();
  }
}

const STATS_SNAPSHOT = `SELECT coalesce(jsonb_agg(t ORDER BY t), '[]') AS totals FROM (
  SELECT figure, stage, currency, provider, model, hold_status, "partial", hour, producer, sum(count) AS count,
         sum(micros) AS micros, sum(settled_micros) AS settled, sum(released_micros) AS released
  FROM (SELECT * FROM stat_totals UNION ALL SELECT * FROM stat_deltas) x
  GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9
  HAVING sum(count) <> 0 OR sum(micros) <> 0 OR sum(settled_micros) <> 0 OR sum(released_micros) <> 0) t`;

/**
 * Whether the running totals kept by the triggers equal what stat_rebuild() computes from the rows
 * now (the rebuild then stays: it changes nothing when they agree).
 */
export async function statsAgreeWithRebuild(databaseUrl: string): Promise<{ ok: boolean; groups: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("BEGIN");
    await client.query('LOCK TABLE "cases", "holds", "ledger_entries" IN SHARE MODE');
    const kept = JSON.stringify((await client.query<{ totals: unknown[] }>(STATS_SNAPSHOT)).rows[0]?.totals);
    await client.query("SELECT stat_rebuild()");
    const rows = (await client.query<{ totals: unknown[] }>(STATS_SNAPSHOT)).rows[0]?.totals ?? [];
    await client.query("COMMIT");
    return { ok: kept === JSON.stringify(rows), groups: rows.length };
  } finally {
    await client.end();
  }
}
