import pg from "pg";
import type { ParkBody } from "./app-ingest-bodies";

/**
 * The baseline for the ingest burst: the rows a registration writes (operation, attempt, case, hold,
 * reserve entry, two audit events), as one `INSERT ... ON CONFLICT DO NOTHING` statement per case
 * over a plain pg pool. A replay inserts nothing and reads the existing case back, which is what
 * an idempotent registration has to answer.
 */
const REGISTER = `
WITH op AS (
  INSERT INTO operations (producer, operation_id, provider, model, request_fingerprint, request_summary)
  VALUES ($1, $2, $3, $4, $5, $6::jsonb)
  ON CONFLICT (producer, operation_id) DO NOTHING
  RETURNING id
), att AS (
  INSERT INTO attempts (operation_ref, attempt_id, kind, provider_job_id, submitted_at)
  SELECT id, $7, 'original', $8, $9::timestamptz FROM op
  RETURNING id, operation_ref
), cs AS (
  INSERT INTO cases (operation_ref, attempt_ref, producer, operation_id, attempt_id, provider, model, stage, state,
                     provider_job_id, registered_stage, registered_job_id, registered_fingerprint, held_micros,
                     currency, last_evidence, submitted_at)
  SELECT operation_ref, id, $1, $2, $7, $3, $4, $10::"Stage", 'parked', $8, $10::"Stage", $8, $5, $11, $12,
         $13::jsonb, $9::timestamptz
  FROM att
  RETURNING id, attempt_ref, stage, state, provider_job_id, version
), h AS (
  INSERT INTO holds (hold_id, producer, case_id, attempt_ref, amount_micros, currency)
  SELECT $14, $1, id, attempt_ref, $11, $12 FROM cs
  RETURNING id
), ledger AS (
  INSERT INTO ledger_entries (hold_ref, kind, amount_micros, actor_label)
  SELECT id, 'reserve', $11, $15 FROM h
), audit AS (
  INSERT INTO audit_events (case_id, episode, actor_kind, actor_id, actor_label, kind, after, evidence)
  SELECT cs.id, 1, 'api_key', $16, $15, e.kind, e.after, e.evidence
  FROM cs CROSS JOIN LATERAL (VALUES
    (1, 'parked', jsonb_build_object('stage', cs.stage, 'state', cs.state, 'providerJobId', cs.provider_job_id,
                                     'version', cs.version), $13::jsonb),
    (2, 'hold_reserved', jsonb_build_object('holdId', $14::text, 'amountMicros', $11::bigint, 'currency', $12::text),
     NULL::jsonb)
  ) AS e(ord, kind, after, evidence)
  ORDER BY e.ord
)
SELECT id, true AS created FROM cs
UNION ALL
SELECT c.id, false FROM operations o JOIN cases c ON c.operation_ref = o.id
WHERE o.producer = $1 AND o.operation_id = $2 AND NOT EXISTS (SELECT 1 FROM op)`;

export function rawRegisterParams(body: ParkBody, producer: { id: string; name: string }): unknown[] {
  return [
    producer.name,
    body.operationId,
    body.provider,
    body.model,
    body.requestFingerprint,
    body.request ? JSON.stringify(body.request) : null,
    body.attemptId,
    body.providerJobId ?? null,
    body.submittedAt ?? null,
    body.stage,
    body.hold.amountMicros,
    body.hold.currency,
    JSON.stringify(body.evidence),
    body.hold.holdId,
    `api key ${producer.name}`,
    producer.id,
  ];
}

export type LoadFigures = { count: number; seconds: number; perSecond: number; p99Ms: number; created: number };

/** Runs every body through `connections` concurrent clients of one pool, timing each statement. */
export async function runRawRegistrations(
  databaseUrl: string,
  bodies: ParkBody[],
  producer: { id: string; name: string },
  connections: number,
): Promise<LoadFigures> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: connections });
  try {
    // Open every connection before the clock starts, as autocannon does with its sockets.
    const clients = await Promise.all(Array.from({ length: connections }, () => pool.connect()));
    for (const client of clients) client.release();
    const latencies: number[] = [];
    let next = 0;
    let created = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (next < bodies.length) {
          const body = bodies[next++] as ParkBody;
          const at = performance.now();
          const { rows } = await pool.query<{ created: boolean }>({
            name: "raw_register",
            text: REGISTER,
            values: rawRegisterParams(body, producer),
          });
          latencies.push(performance.now() - at);
          if (rows[0]?.created) created++;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    return {
      count: latencies.length,
      seconds,
      perSecond: latencies.length / seconds,
      p99Ms: latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? 0,
      created,
    };
  } finally {
    await pool.end();
  }
}
