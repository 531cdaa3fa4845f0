import { execFile } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRedactedJson, redactedJson } from "@/lib/audit/canonical";
import { type ChainReport, verifyAuditChains } from "@/lib/audit/verify-chain";
import { retentionReason } from "@/lib/domain/retention";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { addNote } from "@/lib/services/case/add-note";
import { parkCase } from "@/lib/services/case/park-case";
import { resolveHold } from "@/lib/services/hold/resolve-hold";
import { saveRetentionPolicy } from "@/lib/services/retention/retention-policy";
import { runRetention } from "@/lib/services/retention/run-retention";
import { localStorage } from "@/lib/storage/local-storage";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { backdateResolution } from "./helpers/backdate-resolution";
import { openTestDb, ownerUrl } from "./setup/test-db";

// Decision 052: audit_redact_case judges by facts only the owner writes (the resolution as the
// case's audit chain records it, the policy as its log records it), writes the policy's reason, and
// audit:verify names any redaction marker no justified retention redaction covers.
const { db, url } = openTestDb();
const app = new pg.Client({ connectionString: url });
const owner = new pg.Client({ connectionString: ownerUrl() });

const evidenceOf = async (caseId: string) =>
  (
    await app.query<{ evidence: unknown }>(
      "SELECT evidence FROM audit_events WHERE case_id = $1 AND evidence IS NOT NULL ORDER BY chain_seq",
      [caseId],
    )
  ).rows.map((r) => r.evidence);
const brokenFor = (report: ChainReport, caseId: string) => report.broken.find((link) => link.caseId === caseId);
const verify = async () => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await verifyAuditChains(client);
  } finally {
    await client.end();
  }
};

/** An open case with customer text on its timeline. */
async function openCaseWithText(shop: string) {
  const reviewer = await makeUser(db, ["reviewer"]);
  const { caseId } = await parkCase(db, producer(shop), parkInput("polling"));
  await addNote(db, reviewer, caseId, { text: "the customer's own words" });
  return caseId;
}

beforeAll(async () => {
  await Promise.all([app.connect(), owner.connect()]);
});
afterAll(async () => {
  await Promise.all([app.end(), owner.end()]);
});

describe("the app's role cannot wipe an open case's audit evidence", () => {
  it("marking it resolved in the past and adding a one-day policy, in one transaction, redacts nothing", async () => {
    const caseId = await openCaseWithText("attacked-shop");
    const before = await evidenceOf(caseId);
    expect(JSON.stringify(before)).toContain("the customer's own words");

    await app.query("BEGIN");
    const outcomes: Array<string | null> = [];
    const tryStatement = async (sql: string) => {
      await app.query("SAVEPOINT s");
      try {
        await app.query(sql, [caseId]);
        outcomes.push(null);
      } catch (error) {
        outcomes.push((error as Error).message);
      }
      await app.query("ROLLBACK TO SAVEPOINT s");
    };
    try {
      await app.query(
        "UPDATE cases SET state = 'resolved', resolved_at = now() - interval '40 days' WHERE id = $1::uuid",
        [caseId],
      );
      await app.query(
        "INSERT INTO retention_policies (scope, days) VALUES ('attacked-shop', 1) ON CONFLICT (scope) DO UPDATE SET days = 1",
      );
      // The old form, with the caller's reason, is gone; the new one finds no resolution in the chain.
      await tryStatement("SELECT audit_redact_case($1::uuid, 'retention policy: 1 days after resolution')");
      await tryStatement("SELECT * FROM audit_redact_case($1::uuid)");
      await tryStatement("SELECT ledger_redact_case_notes($1::uuid)");
      // A forged resolving event is timed by the database's clock, so it is not a day old.
      await app.query(
        `INSERT INTO audit_events (case_id, actor_kind, actor_label, kind, after, created_at)
         VALUES ($1::uuid, 'system', 'x', 'failure_accepted', '{"stage": "generation_failed", "state": "resolved"}', now() - interval '40 days')`,
        [caseId],
      );
      await tryStatement("SELECT * FROM audit_redact_case($1::uuid)");
      // Nor can it write the facts themselves.
      await tryStatement(
        "UPDATE case_resolution_facts SET resolved_at = now() - interval '40 days' WHERE case_id = $1",
      );
      await tryStatement("INSERT INTO retention_policy_log (scope, days, recorded_at) SELECT $1::text, 1, now()");
      await tryStatement(
        "INSERT INTO audit_redactions (case_id, through_seq, since_at, days, reason, redacted) VALUES ($1, 9, now(), 1, 'x', 1)",
      );
    } finally {
      await app.query("ROLLBACK");
    }
    expect(outcomes[0]).toMatch(/function audit_redact_case\(uuid, unknown\) does not exist/);
    expect(outcomes[1]).toMatch(/is not resolved by its audit history/);
    expect(outcomes[2]).toMatch(/is not resolved by its audit history/);
    expect(outcomes[3]).toMatch(/within its retention period/);
    for (const outcome of outcomes.slice(4)) expect(outcome).toMatch(/permission denied/);
    expect(await evidenceOf(caseId)).toEqual(before);
  });

  it("the same with every statement committed leaves the evidence and the chain intact", async () => {
    const caseId = await openCaseWithText("committed-shop");
    const before = await evidenceOf(caseId);
    await app.query(
      "UPDATE cases SET state = 'resolved', resolved_at = now() - interval '40 days' WHERE id = $1::uuid",
      [caseId],
    );
    await app.query("INSERT INTO retention_policies (scope, days) VALUES ('committed-shop', 1)");
    await expect(app.query("SELECT * FROM audit_redact_case($1::uuid)", [caseId])).rejects.toThrow(/not resolved/);
    await app.query("UPDATE cases SET state = 'parked', resolved_at = NULL WHERE id = $1::uuid", [caseId]);
    await app.query("DELETE FROM retention_policies WHERE scope = 'committed-shop'");
    expect(await evidenceOf(caseId)).toEqual(before);
    // The policy's short life stays on record, with its time.
    const log = await app.query<{ days: number | null; dropped: boolean }>(
      "SELECT days, dropped FROM retention_policy_log WHERE scope = 'committed-shop' ORDER BY id",
    );
    expect(log.rows).toEqual([
      { days: 1, dropped: false },
      { days: null, dropped: true },
    ]);
    expect(brokenFor(await verify(), caseId)).toBeUndefined();
  });
});

describe("a redaction no retention function made", () => {
  it("is reported by audit:verify as unjustified, even with the marker's digest kept", async () => {
    const caseId = await openCaseWithText("forged-shop");
    const [target] = (
      await app.query<{ id: string; chain_seq: number }>(
        "SELECT id::text, chain_seq FROM audit_events WHERE case_id = $1 AND evidence IS NOT NULL ORDER BY chain_seq DESC LIMIT 1",
        [caseId],
      )
    ).rows;
    // The owner bypasses the function: the append-only trigger admits a marker, digests kept.
    const forged = await owner.query("UPDATE audit_events SET evidence = $2 WHERE id = $1", [
      target?.id,
      JSON.stringify(redactedJson(retentionReason(1, new Date()))),
    ]);
    expect(forged.rowCount).toBe(1);

    expect(brokenFor(await verify(), caseId)).toMatchObject({
      seq: target?.chain_seq,
      eventId: target?.id,
      problem: "unjustified_redaction",
    });
    const env = { ...process.env, DATABASE_URL: url, MIGRATION_DATABASE_URL: "" };
    const run = await promisify(execFile)("npx", ["tsx", "scripts/audit-verify.ts"], { env }).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: { code?: number; stdout?: string }) => ({ code: error.code ?? -1, stdout: error.stdout ?? "" }),
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `case ${caseId}, seq ${target?.chain_seq} (event ${target?.id}): unjustified redaction: evidence redacted`,
    );
  });
});

describe("the normal retention run", () => {
  it("still redacts a resolved case past its policy, with the policy's reason, and the chain verifies", async () => {
    const shop = "retained-shop";
    const admin = await makeUser(db, ["admin"]);
    const reviewer = await makeUser(db, ["reviewer"]);
    const finance = await makeUser(db, ["finance"]);
    await saveRetentionPolicy(db, admin, { producer: shop, days: 30 });
    const { caseId } = await parkCase(db, producer(shop), parkInput("generation_failed"));
    await acceptFailure(db, reviewer, caseId, { evidence: "customer says the dog video was wrong" });
    const hold = await db.hold.findFirstOrThrow({ where: { caseId } });
    await resolveHold(db, finance, hold.id, { kind: "release", note: "refund per ticket 7", evidence: "ticket 7" });
    await backdateResolution(caseId, 31);

    const storage = localStorage(await mkdtemp(path.join(tmpdir(), "redaction-facts-")));
    const run = await runRetention(db, storage, worker(), { now: new Date(), deadline: Date.now() + 10_000 });
    expect(run.redacted).toBeGreaterThanOrEqual(1);

    const reason = retentionReason(30, new Date());
    const evidence = await app.query<{ kind: string; evidence: unknown }>(
      "SELECT kind, evidence FROM audit_events WHERE case_id = $1 AND evidence IS NOT NULL ORDER BY chain_seq",
      [caseId],
    );
    const redacted = evidence.rows.filter((r) => r.kind !== "case_redacted");
    expect(redacted.length).toBeGreaterThan(0);
    for (const row of redacted) {
      expect(isRedactedJson(JSON.stringify(row.evidence))).toBe(true);
      expect(row.evidence).toEqual(redactedJson(reason));
    }
    const recorded = await app.query<{ days: number; reason: string; redacted: number }>(
      "SELECT days, reason, redacted FROM audit_redactions WHERE case_id = $1",
      [caseId],
    );
    expect(recorded.rows).toEqual([{ days: 30, reason, redacted: redacted.length }]);
    const report = await verify();
    expect(brokenFor(report, caseId)).toBeUndefined();
    expect(report.redactedFields).toBeGreaterThanOrEqual(redacted.length);
  });
});
