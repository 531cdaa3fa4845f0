import { randomBytes } from "node:crypto";
import { cp, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { withDatabase } from "@/lib/db/embedded";
import { migrate } from "@/lib/db/migrate";
import { clientsEndedAfterAll } from "./helpers/database-before";

const OWNERSHIP = "20261201000000_job_ownership";
const connect = clientsEndedAfterAll();

/** A fresh database migrated to just before job ownership, as an earlier deployment would be. */
async function databaseBeforeOwnership(): Promise<{ url: string; dir: string }> {
  const serverUrl = inject("serverUrl");
  const name = `${inject("runPrefix")}_own_${randomBytes(4).toString("hex")}`;
  const admin = await connect(serverUrl);
  await admin.query(`CREATE DATABASE "${name}"`);
  const dir = await mkdtemp(path.join(tmpdir(), "migrations-"));
  await cp("prisma/migrations", dir, { recursive: true });
  const later = (await readdir(dir)).filter((n) => n >= OWNERSHIP);
  for (const n of later) await rm(path.join(dir, n), { recursive: true });
  const url = withDatabase(serverUrl, name);
  await migrate(url, { dir });
  return { url, dir };
}

const FP = `sha256:${"c".repeat(64)}`;

/** One operation with its attempt, case and hold, written as the old code could write it. */
async function legacyCase(
  client: pg.Client,
  o: { producer: string; op: string; job: string; stage: string; state: string; at: string },
): Promise<{ caseId: string; attemptRef: string }> {
  const { rows } = await client.query<{ case_id: string; attempt_ref: string }>(
    `WITH op AS (
       INSERT INTO operations (producer, operation_id, provider, model, request_fingerprint)
       VALUES ($1, $2, 'replicate', 'm', $6) RETURNING id
     ), att AS (
       INSERT INTO attempts (operation_ref, attempt_id, kind, provider_job_id, created_at)
       SELECT id, $2 || '-a1', 'original', $3, $7::timestamptz FROM op RETURNING id, operation_ref
     ), cs AS (
       INSERT INTO cases (operation_ref, attempt_ref, producer, operation_id, attempt_id, provider, model, stage, state,
                          provider_job_id, registered_stage, registered_job_id, registered_fingerprint, held_micros,
                          currency, last_evidence)
       SELECT operation_ref, id, $1, $2, $2 || '-a1', 'replicate', 'm', $4::"Stage", $5::"CaseState", $3,
              $4::"Stage", $3, $6, 500000, 'USD', '{}'::jsonb FROM att RETURNING id, attempt_ref
     ), h AS (
       INSERT INTO holds (hold_id, producer, case_id, attempt_ref, amount_micros, currency)
       SELECT 'hold-' || $2, $1, id, attempt_ref, 500000, 'USD' FROM cs
     )
     SELECT id AS case_id, attempt_ref FROM cs`,
    [o.producer, o.op, o.job, o.stage, o.state, FP, o.at],
  );
  const row = rows[0];
  if (!row) throw new Error("not seeded");
  return { caseId: row.case_id, attemptRef: row.attempt_ref };
}

describe(`migration ${OWNERSHIP} on a database that already holds one job on several operations`, () => {
  it("keeps the job with the earliest registration and sends the others back to reconciliation, with evidence", async () => {
    const { url } = await databaseBeforeOwnership();
    const client = await connect(url);
    const job = "shared-job-1";
    const owner = await legacyCase(client, {
      producer: "a",
      op: "op-a",
      job,
      stage: "polling",
      state: "parked",
      at: "2026-11-01T10:00:00Z",
    });
    const open = await legacyCase(client, {
      producer: "b",
      op: "op-b",
      job,
      stage: "delivery",
      state: "parked",
      at: "2026-11-01T10:05:00Z",
    });
    const closed = await legacyCase(client, {
      producer: "c",
      op: "op-c",
      job,
      stage: "delivery",
      state: "resolved",
      at: "2026-11-01T10:06:00Z",
    });

    await migrate(url, { dir: path.resolve("prisma/migrations") });

    const attempts = await client.query<{ id: string; provider: string; provider_job_id: string | null }>(
      "SELECT id, provider, provider_job_id FROM attempts",
    );
    const jobOf = (id: string) => attempts.rows.find((r) => r.id === id)?.provider_job_id;
    expect(jobOf(owner.attemptRef)).toBe(job);
    expect(jobOf(open.attemptRef)).toBeNull();
    expect(jobOf(closed.attemptRef)).toBeNull();
    expect(attempts.rows.every((r) => r.provider === "replicate")).toBe(true);

    const cases = await client.query<Record<string, unknown>>(
      "SELECT id, stage, state, provider_job_id, registered_job_id, held_micros FROM cases",
    );
    const caseOf = (id: string) => cases.rows.find((r) => r.id === id);
    expect(caseOf(owner.caseId)).toMatchObject({ stage: "polling", provider_job_id: job });
    expect(caseOf(open.caseId)).toMatchObject({
      stage: "submission_uncertain",
      state: "parked",
      provider_job_id: null,
      registered_job_id: job,
    });
    // History stays as it was; the money on hold is untouched.
    expect(caseOf(closed.caseId)).toMatchObject({ stage: "delivery", state: "resolved", provider_job_id: job });
    const held = await client.query("SELECT count(*)::int AS n FROM holds WHERE status = 'held'");
    expect(held.rows[0]?.n).toBe(3);

    const events = await client.query<{ case_id: string; evidence: Record<string, unknown> }>(
      "SELECT case_id, evidence FROM audit_events WHERE kind = 'provider_job_disowned' ORDER BY case_id",
    );
    expect(events.rows.map((e) => e.case_id).sort()).toEqual([open.caseId, closed.caseId].sort());
    for (const e of events.rows) expect(e.evidence).toMatchObject({ providerJobId: job, ownerCaseId: owner.caseId });

    // From now on the database itself refuses a second attempt on the job.
    const again = await client
      .query(
        `INSERT INTO attempts (operation_ref, attempt_id, kind, provider_job_id)
         SELECT operation_ref, 'again', 'original', $1 FROM cases WHERE id = $2`,
        [job, open.caseId],
      )
      .then(
        () => null,
        (e: { code?: string }) => e.code,
      );
    expect(again).toBe("23505");
  });
});
