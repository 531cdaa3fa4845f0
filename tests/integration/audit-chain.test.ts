import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { eventHash, GENESIS_HASH, redactedJson } from "@/lib/audit/canonical";
import { type ChainReport, verifyAuditChains } from "@/lib/audit/verify-chain";
import { withDatabase } from "@/lib/db/embedded";
import { env } from "@/lib/env";
import { createUser } from "@/lib/services/admin/create-user";
import { addNote } from "@/lib/services/case/add-note";
import { approveCase } from "@/lib/services/case/approve-case";
import { parkCase } from "@/lib/services/case/park-case";
import { claimActions } from "@/lib/services/claim/claim-actions";
import { reportOutcome } from "@/lib/services/permit/report-outcome";
import { requestPermit } from "@/lib/services/permit/request-permit";
import { createUserSchema } from "@/lib/validation/admin";
import { parseInput } from "@/lib/validation/parse-input";
import { makeUser, outcomeInput, parkInput, permitInput, producer, worker } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// Rule 15: audit rows are hash-chained per case, so that even the owner's edits are detectable.
const { db, url } = openTestDb();
// The owner of the tables (this server's superuser on this file's database): the one role that
// can set the append-only trigger aside, which is exactly the edit the chain must expose.
const ownerUrl = withDatabase(inject("serverUrl"), new URL(url).pathname.slice(1));
const app = new pg.Client({ connectionString: url });
const owner = new pg.Client({ connectionString: ownerUrl });
const verifier = new pg.Client({ connectionString: url });

type Link = { id: string; chain_seq: number; prev_hash: Buffer; hash: Buffer };
const chainOf = async (caseId: string | null) =>
  (
    await app.query<Link>(
      `SELECT id::text, chain_seq, prev_hash, hash FROM audit_events
       WHERE case_id IS NOT DISTINCT FROM $1::uuid ORDER BY chain_seq`,
      [caseId],
    )
  ).rows;

/** One linear chain: positions 1..n, each event pointing at the one before it, the head at the end. */
async function expectLinear(caseId: string | null, length?: number) {
  const chain = await chainOf(caseId);
  if (length !== undefined) expect(chain).toHaveLength(length);
  chain.forEach((link, index) => {
    expect(link.chain_seq).toBe(index + 1);
    expect(link.prev_hash.equals(index === 0 ? GENESIS_HASH : (chain[index - 1]?.hash ?? Buffer.alloc(0)))).toBe(true);
  });
  const head = await app.query<{ seq: number; hash: Buffer }>(
    "SELECT seq, hash FROM audit_chain_heads WHERE chain_key = $1",
    [caseId ?? "system"],
  );
  expect(head.rows[0]?.seq).toBe(chain.length);
  expect(head.rows[0]?.hash.equals(chain.at(-1)?.hash ?? Buffer.alloc(0))).toBe(true);
  return chain;
}

/** As the owner: set the append-only trigger aside for one statement, as a tamperer would. */
async function asOwner(sql: string, params: unknown[]) {
  await owner.query("BEGIN");
  await owner.query("ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_update_delete");
  const result = await owner.query(sql, params);
  await owner.query("ALTER TABLE audit_events ENABLE TRIGGER audit_events_no_update_delete");
  await owner.query("COMMIT");
  expect(result.rowCount).toBe(1);
}

const verify = () => verifyAuditChains(verifier, { batchSize: 7 });
const brokenFor = (report: ChainReport, caseId: string) => report.broken.find((link) => link.caseId === caseId);

/** A case of its own for each tampering, so each one's report stands apart from the others. */
async function caseWithNotes(notes: number) {
  const reviewer = await makeUser(db, ["reviewer"]);
  const { caseId } = await parkCase(db, producer(), parkInput("polling"));
  for (let i = 1; i <= notes; i++) await addNote(db, reviewer, caseId, { text: `note ${i}` });
  return { caseId, chain: await expectLinear(caseId, notes + 2) };
}

beforeAll(async () => {
  await Promise.all([app.connect(), owner.connect(), verifier.connect()]);
});
afterAll(async () => {
  await Promise.all([app.end(), owner.end(), verifier.end()]);
});

describe("the chain forms on every insert, whoever writes it", () => {
  it("links each case's events across services, with another case interleaved and case-less events on the system chain", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const admin = await makeUser(db, ["admin"]);
    const a = await parkCase(db, producer(), parkInput("polling"));
    const b = await parkCase(db, producer(), parkInput("delivery"));
    await addNote(db, reviewer, a.caseId, { text: "provider dashboard shows the job running" });
    await addNote(db, reviewer, b.caseId, { text: "bucket was full" });
    await approveCase(db, reviewer, a.caseId, { action: "resume_poll", evidence: "provider recovered" });
    await approveCase(db, reviewer, b.caseId, { action: "retry_delivery", evidence: "bucket has room again" });
    const claimed = await claimActions(db, worker(), { max: 10 });
    expect(claimed.map((c) => c.caseId).sort()).toEqual([a.caseId, b.caseId].sort());
    await createUser(
      db,
      admin,
      parseInput(createUserSchema, { email: `chain-${randomUUID()}@example.com`, roles: ["operator"] }),
    );

    const kinds = async (caseId: string) =>
      (await app.query("SELECT kind FROM audit_events WHERE case_id = $1 ORDER BY chain_seq", [caseId])).rows.map(
        (r) => r.kind,
      );
    expect(await kinds(a.caseId)).toEqual(["parked", "hold_reserved", "note_added", "approved", "claimed"]);
    await expectLinear(a.caseId, 5);
    await expectLinear(b.caseId, 5);
    await expectLinear(null);
    // The two cases' chains are apart: neither's first event points at the other.
    expect((await chainOf(b.caseId))[0]?.prev_hash.equals(GENESIS_HASH)).toBe(true);
  });

  it("overwrites whatever the caller sent for the chain columns", async () => {
    const caseId = randomUUID();
    const forged = Buffer.alloc(32, 7);
    await app.query(
      `INSERT INTO audit_events (case_id, actor_kind, actor_label, kind, chain_seq, prev_hash, hash, actor_label_digest)
       VALUES ($1, 'system', 'test', 'probe', 41, $2, $2, $2)`,
      [caseId, forged],
    );
    const [link] = await expectLinear(caseId, 1);
    expect(link?.hash.equals(forged)).toBe(false);
  });

  it("the stored hash is the verifier's own computation of the canonical content", async () => {
    const { rows } = await app.query(
      `SELECT id::text AS id, case_id::text AS "caseId", operation_ref::text AS "operationRef", chain_seq AS seq, encode(prev_hash, 'hex') AS "prevHash",
              episode, actor_kind::text AS "actorKind", actor_id AS "actorId",
              encode(actor_label_digest, 'hex') AS "actorLabelDigest", kind,
              encode(before_digest, 'hex') AS "beforeDigest", encode(after_digest, 'hex') AS "afterDigest",
              encode(evidence_digest, 'hex') AS "evidenceDigest",
              (extract(epoch FROM created_at) * 1000000)::bigint::text AS "createdAtMicros", encode(hash, 'hex') AS hash
       FROM audit_events ORDER BY id`,
    );
    expect(rows.length).toBeGreaterThan(10);
    for (const row of rows) expect(eventHash(row)).toBe(row.hash);
  });
});

describe("concurrent appends to one case keep one linear chain", () => {
  it("a second connection waits for the first one's link, then chains onto it", async () => {
    const { caseId } = await parkCase(db, producer(), parkInput("polling"));
    const second = new pg.Client({ connectionString: url });
    await second.connect();
    try {
      await app.query("BEGIN");
      await app.query(
        "INSERT INTO audit_events (case_id, actor_kind, actor_label, kind) VALUES ($1, 'system', 'first', 'probe')",
        [caseId],
      );
      const pid = (await second.query("SELECT pg_backend_pid() AS pid")).rows[0].pid;
      const waiting = second.query(
        "INSERT INTO audit_events (case_id, actor_kind, actor_label, kind) VALUES ($1, 'system', 'second', 'probe')",
        [caseId],
      );
      // The second append is blocked on the chain's head, not racing past it.
      for (let i = 0; i < 100; i++) {
        const { rows } = await app.query("SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1", [pid]);
        if (rows[0]?.wait_event_type === "Lock") break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect((await app.query("SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1", [pid])).rows[0]).toEqual({
        wait_event_type: "Lock",
      });
      await app.query("COMMIT");
      await waiting;
    } finally {
      await second.end();
    }
    const chain = await expectLinear(caseId, 4);
    expect(
      (await app.query("SELECT actor_label FROM audit_events WHERE case_id = $1 ORDER BY chain_seq", [caseId])).rows,
    ).toEqual(expect.arrayContaining([{ actor_label: "first" }, { actor_label: "second" }]));
    expect(chain.map((link) => link.chain_seq)).toEqual([1, 2, 3, 4]);
  });

  it("two connections racing on a brand-new chain (no head yet) do not fork it", async () => {
    const caseId = randomUUID();
    const clients = [new pg.Client({ connectionString: url }), new pg.Client({ connectionString: url })];
    await Promise.all(clients.map((c) => c.connect()));
    try {
      await Promise.all(
        clients.map(async (client, n) => {
          for (let i = 0; i < 40; i++) {
            await client.query("BEGIN");
            await client.query(
              "INSERT INTO audit_events (case_id, actor_kind, actor_label, kind) VALUES ($1, 'system', $2, 'probe')",
              [caseId, `client ${n} #${i}`],
            );
            await client.query("COMMIT");
          }
        }),
      );
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
    await expectLinear(caseId, 80);
  });

  it("twenty notes on one case through the services at once (a pool of five) form one chain", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const { caseId } = await parkCase(db, producer(), parkInput("polling"));
    await Promise.all(Array.from({ length: 20 }, (_, i) => addNote(db, reviewer, caseId, { text: `note ${i}` })));
    await expectLinear(caseId, 22);
  });
});

// Decision 059: an operation's events without a case have their own chain, so the permits in front
// of paid calls do not queue on one shared head row.
describe("events without a case chain per operation", () => {
  const probe = (client: pg.Client, operationRef: string | null, label: string) =>
    client.query(
      "INSERT INTO audit_events (operation_ref, actor_kind, actor_label, kind) VALUES ($1, 'system', $2, 'probe')",
      [operationRef, label],
    );
  const operationChain = async (operationRef: string) =>
    (
      await app.query<{ chain_seq: number; prev_hash: Buffer; hash: Buffer; kind: string }>(
        "SELECT chain_seq, prev_hash, hash, kind FROM audit_events WHERE operation_ref = $1 ORDER BY chain_seq",
        [operationRef],
      )
    ).rows;

  it("a send permit and its report go on the operation's chain, and its case starts its own", async () => {
    const shop = producer();
    const { operationId, input } = permitInput();
    const permit = await requestPermit(db, shop, operationId, input, env());
    if (permit.status !== "permitted") throw new Error(`no permit: ${permit.status}`);
    await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, permit.permit.token, "unknown"));
    const { rows } = await app.query<{ id: string }>(
      "SELECT o.id::text FROM operations o WHERE o.producer = $1 AND o.operation_id = $2",
      [shop.name, operationId],
    );
    const operationRef = rows[0]?.id as string;
    const chain = await operationChain(operationRef);
    expect(chain.map((link) => link.kind)).toEqual(["permit_issued"]);
    expect(chain[0]?.chain_seq).toBe(1);
    expect(chain[0]?.prev_hash.equals(GENESIS_HASH)).toBe(true);
    const head = await app.query<{ seq: number; hash: Buffer }>(
      "SELECT seq, hash FROM audit_chain_heads WHERE chain_key = $1",
      [`operation:${operationRef}`],
    );
    expect(head.rows[0]?.seq).toBe(1);
    expect(head.rows[0]?.hash.equals(chain[0]?.hash ?? Buffer.alloc(0))).toBe(true);
    // The unknown report parked it: the case's events are the case's, none on the operation's chain.
    const parked = await app.query(
      "SELECT count(*)::int AS n FROM audit_events WHERE case_id = (SELECT id FROM cases WHERE operation_ref = $1)",
      [operationRef],
    );
    expect(parked.rows[0].n).toBeGreaterThan(0);
  });

  it("an append to one operation's chain does not wait for another operation's, nor for the system chain's", async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const second = new pg.Client({ connectionString: url });
    await second.connect();
    try {
      await app.query("BEGIN");
      await probe(app, a, "first on a");
      await probe(app, null, "first on system");
      // Any wait at all fails the statement: the two appends below must take no lock the first holds.
      await second.query("SET lock_timeout = '200ms'");
      await probe(second, b, "on b while a is open");
      await expect(probe(second, a, "on a while a is open")).rejects.toMatchObject({ code: "55P03" });
      await expect(probe(second, null, "on system while it is open")).rejects.toMatchObject({ code: "55P03" });
      await app.query("COMMIT");
      await probe(second, a, "on a after");
    } finally {
      await app.query("ROLLBACK").catch(() => {});
      await second.end();
    }
    expect((await operationChain(a)).map((link) => link.chain_seq)).toEqual([1, 2]);
    expect((await operationChain(b)).map((link) => link.chain_seq)).toEqual([1]);
  });

  it("a case's event that also names an operation stays on the case's chain", async () => {
    const { caseId } = await parkCase(db, producer(), parkInput("polling"));
    await app.query(
      "INSERT INTO audit_events (case_id, operation_ref, actor_kind, actor_label, kind) VALUES ($1, $2, 'system', 'x', 'probe')",
      [caseId, randomUUID()],
    );
    const chain = await expectLinear(caseId);
    const { rows } = await app.query("SELECT operation_ref FROM audit_events WHERE case_id = $1", [caseId]);
    expect(rows.every((row) => row.operation_ref === null)).toBe(true);
    expect(chain.length).toBeGreaterThan(1);
  });

  it("the verifier names an operation's chain by its operation when the owner edits it", async () => {
    const operationRef = randomUUID();
    await probe(app, operationRef, "one");
    await probe(app, operationRef, "two");
    const [, target] = (
      await app.query<{ id: string }>("SELECT id::text FROM audit_events WHERE operation_ref = $1 ORDER BY chain_seq", [
        operationRef,
      ])
    ).rows;
    await asOwner("UPDATE audit_events SET actor_label = 'three' WHERE id = $1", [target?.id]);
    const report = await verify();
    expect(report.broken.find((link) => link.operationRef === operationRef)).toEqual({
      chain: `operation:${operationRef}`,
      caseId: null,
      operationRef,
      seq: 2,
      eventId: target?.id,
      problem: "edited_content",
      detail: "actor_label differs from its recorded digest",
    });
    // Put back, so the verifier's own tests below start from intact chains.
    await asOwner("UPDATE audit_events SET actor_label = 'two' WHERE id = $1", [target?.id]);
    expect((await verify()).brokenChains).toBe(0);
  });
});

describe("the verifier", () => {
  let edited: Awaited<ReturnType<typeof caseWithNotes>>;
  let middle: Awaited<ReturnType<typeof caseWithNotes>>;
  let last: Awaited<ReturnType<typeof caseWithNotes>>;
  let rehashed: Awaited<ReturnType<typeof caseWithNotes>>;
  let redacted: Awaited<ReturnType<typeof caseWithNotes>>;

  beforeAll(async () => {
    edited = await caseWithNotes(3);
    middle = await caseWithNotes(3);
    last = await caseWithNotes(3);
    rehashed = await caseWithNotes(3);
    redacted = await caseWithNotes(2);
  });

  it("passes on intact data, reading in batches smaller than one chain", async () => {
    const report = await verify();
    expect(report.broken).toEqual([]);
    expect(report.brokenChains).toBe(0);
    const { rows } = await app.query(
      `SELECT count(*)::int AS n, count(DISTINCT coalesce(case_id::text, 'operation:' || operation_ref::text, 'system'))::int AS c
       FROM audit_events`,
    );
    expect(report.events).toBe(rows[0].n);
    expect(report.chains).toBe(rows[0].c);
  });

  it("npm run audit:verify exits 0 on intact chains", async () => {
    const run = await runScript();
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Audit chains intact/);
  });

  it("names an event whose evidence the owner rewrote (edited content)", async () => {
    const target = edited.chain[2];
    await asOwner(`UPDATE audit_events SET evidence = '{"text":"nothing to see"}' WHERE id = $1`, [target?.id]);
    const report = await verify();
    expect(brokenFor(report, edited.caseId)).toEqual({
      chain: edited.caseId,
      caseId: edited.caseId,
      operationRef: null,
      seq: 3,
      eventId: target?.id,
      problem: "edited_content",
      detail: "evidence differs from its recorded digest",
    });
    expect(report.brokenChains).toBe(1);
  });

  it("names the gap where the owner deleted a middle event (missing event)", async () => {
    const gone = middle.chain[2];
    const next = middle.chain[3];
    await asOwner("DELETE FROM audit_events WHERE id = $1", [gone?.id]);
    const report = await verify();
    expect(brokenFor(report, middle.caseId)).toMatchObject({ seq: 3, eventId: next?.id, problem: "missing_event" });
    expect(report.brokenChains).toBe(2);
  });

  it("notices that the owner deleted the last event, by the chain's head (missing event)", async () => {
    await asOwner("DELETE FROM audit_events WHERE id = $1", [last.chain.at(-1)?.id]);
    const report = await verify();
    expect(brokenFor(report, last.caseId)).toMatchObject({ seq: 5, eventId: null, problem: "missing_event" });
    expect(brokenFor(report, last.caseId)?.detail).toMatch(/head records 5 event\(s\) but the last one left is seq 4/);
    expect(report.brokenChains).toBe(3);
  });

  it("an edit whose digest and hash the owner recomputed breaks the next link (broken link)", async () => {
    const target = rehashed.chain[2];
    // Everything the database's own functions can redo for one row: content, digest and hash.
    await asOwner(
      `UPDATE audit_events SET evidence = '{"text":"rewritten"}',
         evidence_digest = audit_chain_digest('{"text": "rewritten"}'),
         hash = sha256(convert_to(audit_chain_content(id, case_id, chain_seq, prev_hash, episode, actor_kind::text,
           actor_id, actor_label_digest, kind, before_digest, after_digest,
           audit_chain_digest('{"text": "rewritten"}'), created_at), 'UTF8'))
       WHERE id = $1`,
      [target?.id],
    );
    const report = await verify();
    expect(brokenFor(report, rehashed.caseId)).toMatchObject({
      seq: 4,
      eventId: rehashed.chain[3]?.id,
      problem: "broken_link",
    });
    expect(report.brokenChains).toBe(4);
  });

  // Decision 052: a marker whose digest stands is not enough; retention's own function must have
  // recorded a redaction its policy justifies (tests/integration/redaction-facts.test.ts has those).
  it("a marker with its digest kept, but made by no retention redaction, is named as unjustified", async () => {
    const target = redacted.chain[0];
    await asOwner("UPDATE audit_events SET evidence = $2, actor_label = '[redacted]' WHERE id = $1", [
      target?.id,
      JSON.stringify(redactedJson("retention policy test")),
    ]);
    const report = await verify();
    expect(brokenFor(report, redacted.caseId)).toMatchObject({
      seq: 1,
      eventId: target?.id,
      problem: "unjustified_redaction",
    });
    expect(report.redactedFields).toBe(2);
    expect(report.brokenChains).toBe(5);
  });

  it("npm run audit:verify exits 1 and prints the first broken link of each broken chain", async () => {
    const run = await runScript();
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/Audit chains BROKEN: 5 of/);
    expect(run.stdout).toContain(
      `case ${edited.caseId}, seq 3 (event ${edited.chain[2]?.id}): edited content: evidence differs from its recorded digest`,
    );
    expect(run.stdout).toContain(`case ${middle.caseId}, seq 3 (event ${middle.chain[3]?.id}): missing event`);
    expect(run.stdout).toContain(`case ${last.caseId}, seq 5: missing event`);
    expect(run.stdout).toContain(`case ${rehashed.caseId}, seq 4 (event ${rehashed.chain[3]?.id}): broken link`);
    expect(run.stdout).toContain(
      `case ${redacted.caseId}, seq 1 (event ${redacted.chain[0]?.id}): unjustified redaction`,
    );
  });
});

async function runScript(): Promise<{ code: number; stdout: string }> {
  // An empty owner URL counts as unset: the script connects with DATABASE_URL, like the others.
  const env = { ...process.env, DATABASE_URL: url, MIGRATION_DATABASE_URL: "" };
  try {
    const { stdout } = await promisify(execFile)("npx", ["tsx", "scripts/audit-verify.ts"], { env });
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? "" };
  }
}
