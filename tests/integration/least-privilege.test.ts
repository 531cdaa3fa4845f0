import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { parkCase } from "@/lib/services/case/park-case";
import { resolveHold } from "@/lib/services/hold/resolve-hold";
import { makeUser, parkInput, producer } from "./fixtures";
import { backdateResolution } from "./helpers/backdate-resolution";
import { openTestDb, ownerUrl } from "./setup/test-db";

// DESIGN rule 15: the app connects as a role that owns nothing. It appends to history and money and
// reads them; it cannot rewrite them, empty them, change their tables or switch their triggers off.
const { db, url } = openTestDb();
const app = new pg.Client({ connectionString: url });
const owner = new pg.Client({ connectionString: ownerUrl() });
let caseId: string;
let holdRef: string;

/** Runs `sql` in a transaction that is always rolled back; the error it raised, or null. */
async function attempt(client: pg.Client, sql: string, params: unknown[] = []): Promise<pg.DatabaseError | null> {
  await client.query("BEGIN");
  try {
    await client.query(sql, params);
    return null;
  } catch (error) {
    return error as pg.DatabaseError;
  } finally {
    await client.query("ROLLBACK");
  }
}

const count = async (table: string) =>
  Number((await app.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]?.n);

beforeAll(async () => {
  await app.connect();
  await owner.connect();
  ({ caseId } = await parkCase(db, producer(), parkInput("generation_failed")));
  const hold = await db.hold.findFirstOrThrow({ where: { caseId } });
  holdRef = hold.id;
});
afterAll(async () => {
  await app.end();
  await owner.end();
});

describe("the app's database role", () => {
  it("is a role of its own: not a superuser, not the owner, owning nothing", async () => {
    const { rows } = await app.query<{ user: string; superuser: boolean; owns: number }>(
      `SELECT current_user AS user, (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS superuser,
              (SELECT count(*)::int FROM pg_class WHERE relowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)) AS owns`,
    );
    expect(rows[0]).toEqual({ user: new URL(url).username, superuser: false, owns: 0 });
    const tableOwner = await app.query<{ owner: string }>(
      "SELECT tableowner AS owner FROM pg_tables WHERE tablename = 'audit_events'",
    );
    expect(tableOwner.rows[0]?.owner).not.toBe(rows[0]?.user);
  });

  it("does the normal things: parks a case, whose hold writes the ledger and the audit log, and resolves it", async () => {
    const finance = await makeUser(db, ["finance"]);
    const ledgerBefore = await count("ledger_entries");
    const auditBefore = await count("audit_events");
    const other = await parkCase(db, producer(), parkInput("generation_failed"));
    expect(other.created).toBe(true);
    const hold = await db.hold.findFirstOrThrow({ where: { caseId: other.caseId } });
    await resolveHold(db, finance, hold.id, {
      kind: "settle",
      chargeMicros: 40_000,
      note: "the provider's invoice shows one generation",
      evidence: "invoice line 7",
    });
    expect(await count("ledger_entries")).toBeGreaterThan(ledgerBefore + 1);
    expect(await count("audit_events")).toBeGreaterThan(auditBefore + 1);
  });

  describe.each(["audit_events", "ledger_entries"])("on %s", (table) => {
    const key = (): [string, string] => (table === "audit_events" ? ["case_id", caseId] : ["hold_ref", holdRef]);
    it.each([
      ["UPDATE", () => `UPDATE ${table} SET created_at = now() - interval '1 day' WHERE ${key()[0]} = $1`],
      ["DELETE", () => `DELETE FROM ${table} WHERE ${key()[0]} = $1`],
      ["TRUNCATE", () => `TRUNCATE ${table} CASCADE`],
      ["DISABLE TRIGGER", () => `ALTER TABLE ${table} DISABLE TRIGGER ALL`],
      ["ALTER (add a column)", () => `ALTER TABLE ${table} ADD COLUMN note2 text`],
      ["DROP", () => `DROP TABLE ${table} CASCADE`],
    ])("%s is refused for lack of privilege and changes nothing", async (_name, sql) => {
      const before = await count(table);
      const statement = sql();
      const error = await attempt(app, statement, statement.includes("$1") ? [key()[1]] : []);
      expect(error?.code, statement).toBe("42501");
      expect(error?.message).toMatch(/permission denied|must be owner/);
      expect(await count(table)).toBe(before);
    });

    it("reading and appending are allowed", async () => {
      expect(await count(table)).toBeGreaterThan(0);
      const { rows } = await app.query<{ insert: boolean; update: boolean }>(
        `SELECT has_table_privilege($1, 'INSERT') AS insert, has_table_privilege($1, 'UPDATE') AS update`,
        [table],
      );
      expect(rows[0]).toEqual({ insert: true, update: false });
    });
  });

  it("cannot create a table, a schema or a function", async () => {
    for (const sql of [
      "CREATE TABLE public.sneaky (id int)",
      "CREATE TABLE sneaky (id int)",
      "CREATE SCHEMA sneaky",
      "CREATE FUNCTION public.sneaky() RETURNS int LANGUAGE sql AS 'SELECT 1'",
    ]) {
      const error = await attempt(app, sql);
      expect(error?.code, sql).toBe("42501");
    }
  });
});

describe("the ledger is append-only even for the owner", () => {
  it.each([
    ["UPDATE of an amount", "UPDATE ledger_entries SET amount_micros = amount_micros + 1 WHERE hold_ref = $1", true],
    ["DELETE of an entry", "DELETE FROM ledger_entries WHERE hold_ref = $1", true],
    ["TRUNCATE", "TRUNCATE ledger_entries", false],
  ])("the owner's %s is refused by the trigger", async (_name, sql, withHold) => {
    const error = await attempt(owner, sql, withHold ? [holdRef] : []);
    expect(error?.code).toBe("42501");
    expect(error?.message).toMatch(/ledger_entries is append-only/);
  });

  it("the owner can append", async () => {
    const error = await attempt(
      owner,
      "INSERT INTO ledger_entries (hold_ref, kind, amount_micros, actor_label) VALUES ($1, 'release', 1, 'test')",
      [holdRef],
    );
    expect(error).toBeNull();
  });
});

// Decision 033 (amended): the ledger's one exception is a retention redaction of a note, nothing
// else changed; the app reaches it only through ledger_redact_case_notes, for a case past its period.
describe("ledger_entries admits a note's redaction and nothing else", () => {
  let resolvedId: string;
  let resolvedHold: string;
  beforeAll(async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const finance = await makeUser(db, ["finance"]);
    ({ caseId: resolvedId } = await parkCase(db, producer(), parkInput("generation_failed")));
    await acceptFailure(db, reviewer, resolvedId, { evidence: "customer text" });
    resolvedHold = (await db.hold.findFirstOrThrow({ where: { caseId: resolvedId } })).id;
    await resolveHold(db, finance, resolvedHold, {
      kind: "release",
      note: "refund per ticket 9",
      evidence: "ticket 9",
    });
    await backdateResolution(resolvedId, 40);
  });

  it("the app cannot UPDATE a note directly, not even to the marker", async () => {
    const error = await attempt(app, "UPDATE ledger_entries SET note = '[redacted]' WHERE hold_ref = $1", [
      resolvedHold,
    ]);
    expect(error?.code).toBe("42501");
    expect(error?.message).toMatch(/permission denied/);
  });

  it.each([
    ["other text", "note = 'edited'"],
    ["the marker and a changed amount", "note = '[redacted]', amount_micros = amount_micros + 1"],
    ["the marker and a changed time", "note = '[redacted]', created_at = created_at - interval '1 day'"],
    ["the marker and a changed actor", "note = '[redacted]', actor_label = 'someone'"],
  ])("the owner's update of a note to %s is refused by the trigger", async (_name, set) => {
    const error = await attempt(owner, `UPDATE ledger_entries SET ${set} WHERE hold_ref = $1`, [resolvedHold]);
    expect(error?.code).toBe("42501");
    expect(error?.message).toMatch(/ledger_entries is append-only/);
  });

  it("ledger_redact_case_notes refuses a case that is not resolved or still within its policy, and redacts notes only", async () => {
    const refused = await attempt(app, "SELECT ledger_redact_case_notes($1::uuid)", [caseId]);
    expect(refused?.code).toBe("42501");
    expect(refused?.message).toMatch(/not resolved/);
    const early = await attempt(app, "SELECT ledger_redact_case_notes($1::uuid)", [resolvedId]);
    expect(early?.message).toMatch(/within its retention period/);
    const entries =
      "SELECT id, kind, amount_micros, actor_label, created_at, note FROM ledger_entries WHERE hold_ref = $1 ORDER BY kind";
    await app.query("BEGIN");
    try {
      await app.query(
        `INSERT INTO retention_policies (scope, days) VALUES ('*', 30) ON CONFLICT (scope) DO UPDATE SET days = 30`,
      );
      const before = await app.query<{ note: string | null }>(entries, [resolvedHold]);
      expect(before.rows.map((r) => r.note)).toContain("refund per ticket 9");
      const { rows } = await app.query<{ n: number }>("SELECT ledger_redact_case_notes($1::uuid) AS n", [resolvedId]);
      expect(rows[0]?.n).toBe(before.rows.filter((r) => r.note !== null).length);
      const after = await app.query(entries, [resolvedHold]);
      expect(after.rows).toEqual(before.rows.map((r) => ({ ...r, note: r.note === null ? null : "[redacted]" })));
    } finally {
      await app.query("ROLLBACK");
    }
  });
});

// Decision 033: the one UPDATE audit_events admits is a retention redaction, content to marker,
// every other column as it was; the app reaches it only through audit_redact_case, for a resolved case.
describe("audit_events admits a redaction and nothing else", () => {
  const marker = `'{"$redacted": "retention test"}'::jsonb`;
  let resolvedId: string;
  beforeAll(async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    ({ caseId: resolvedId } = await parkCase(db, producer(), parkInput("generation_failed")));
    await acceptFailure(db, reviewer, resolvedId, { evidence: "customer text" });
    await backdateResolution(resolvedId, 40);
  });

  it("the app cannot UPDATE audit_events directly, not even to a marker", async () => {
    const error = await attempt(app, `UPDATE audit_events SET evidence = ${marker} WHERE case_id = $1`, [resolvedId]);
    expect(error?.code).toBe("42501");
    expect(error?.message).toMatch(/permission denied/);
  });

  it.each([
    ["text that is not a marker", `evidence = '{"text": "edited"}'::jsonb`],
    ["a marker with another key", `evidence = '{"$redacted": "x", "text": "kept"}'::jsonb`],
    ["a marker and a changed time", `evidence = ${marker}, created_at = created_at - interval '1 day'`],
    ["a marker and a changed digest", `evidence = ${marker}, evidence_digest = sha256('x'::bytea)`],
    ["a marker and a changed kind", `evidence = ${marker}, kind = 'other'`],
    ["a changed actor label", "actor_label = '[redacted]'"],
  ])("the owner's update to %s is refused by the trigger", async (_name, set) => {
    const error = await attempt(owner, `UPDATE audit_events SET ${set} WHERE case_id = $1`, [resolvedId]);
    expect(error?.code).toBe("42501");
    expect(error?.message).toMatch(/audit_events is append-only/);
  });

  it("the owner's DELETE and TRUNCATE are still refused", async () => {
    expect((await attempt(owner, "DELETE FROM audit_events WHERE case_id = $1", [resolvedId]))?.message).toMatch(
      /append-only/,
    );
    expect((await attempt(owner, "TRUNCATE audit_events CASCADE"))?.message).toMatch(/append-only/);
  });

  it("audit_redact_case refuses a case that is not resolved or still within its policy, and redacts a resolved one's evidence only", async () => {
    const refused = await attempt(app, "SELECT * FROM audit_redact_case($1::uuid)", [caseId]);
    expect(refused?.code).toBe("42501");
    expect(refused?.message).toMatch(/not resolved/);

    // Resolved 40 days ago: refused while no policy allows it, redacted once one does.
    const early = await attempt(app, "SELECT * FROM audit_redact_case($1::uuid)", [resolvedId]);
    expect(early?.message).toMatch(/within its retention period/);
    await app.query("BEGIN");
    try {
      await app.query(
        `INSERT INTO retention_policies (scope, days) VALUES ('*', 50) ON CONFLICT (scope) DO UPDATE SET days = 50`,
      );
      await app.query("SAVEPOINT young");
      expect(
        await app.query("SELECT * FROM audit_redact_case($1::uuid)", [resolvedId]).catch((e: Error) => e.message),
      ).toMatch(/within its retention period/);
      await app.query("ROLLBACK TO SAVEPOINT young");
      await app.query("UPDATE retention_policies SET days = 30 WHERE scope = '*'");
      const before = await app.query(
        "SELECT id, hash, evidence_digest, before, after FROM audit_events WHERE case_id = $1 ORDER BY id",
        [resolvedId],
      );
      const { rows } = await app.query<{ n: number }>("SELECT redacted AS n FROM audit_redact_case($1::uuid)", [
        resolvedId,
      ]);
      expect(rows[0]?.n).toBeGreaterThan(0);
      const after = await app.query<{ evidence: unknown }>(
        "SELECT id, hash, evidence_digest, before, after, evidence FROM audit_events WHERE case_id = $1 ORDER BY id",
        [resolvedId],
      );
      expect(after.rows.map(({ evidence: _e, ...rest }) => rest)).toEqual(before.rows);
      expect(
        after.rows.filter((r) => r.evidence !== null).every((r) => JSON.stringify(r.evidence).includes("$redacted")),
      ).toBe(true);
    } finally {
      await app.query("ROLLBACK");
    }
  });
});
