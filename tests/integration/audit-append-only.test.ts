import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addNote } from "@/lib/services/case/add-note";
import { parkCase } from "@/lib/services/case/park-case";
import { makeUser, parkInput, producer } from "./fixtures";
import { openOwnerDb, openTestDb } from "./setup/test-db";

// Rule 8: the database itself refuses to rewrite history, whatever the caller, through the ORM or
// through raw SQL. The app role is refused before the trigger by its grants (least-privilege.test.ts);
// this file connects as the owner of the table, the strongest caller the trigger still stops.
const { db } = openTestDb();
const { db: ownerDb, url } = openOwnerDb();
const client = new pg.Client({ connectionString: url });
let caseId: string;

type AuditRow = { id: string; kind: string; actor_label: string; after: unknown; evidence: unknown };
const rowsOf = async () =>
  (
    await client.query<AuditRow>(
      "SELECT id::text, kind, actor_label, after, evidence FROM audit_events WHERE case_id = $1 ORDER BY audit_events.id",
      [caseId],
    )
  ).rows;

async function refusal(sql: string, params: unknown[] = []) {
  // Each attempt runs inside a transaction that is always rolled back, so a broken trigger could
  // not leave damage behind for the next assertion to trip over instead.
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

beforeAll(async () => {
  await client.connect();
  const reviewer = await makeUser(db, ["reviewer"]);
  ({ caseId } = await parkCase(db, producer(), parkInput("polling")));
  await addNote(db, reviewer, caseId, { text: "looked at the provider dashboard" });
});
afterAll(() => client.end());

describe("audit log is append-only", () => {
  it("connects as the owner of the table, and the case has audit rows to protect", async () => {
    const { rows } = await client.query<{ user: string }>('SELECT current_user AS "user"');
    expect(rows[0]?.user).toBe(new URL(url).username);
    const owner = await client.query<{ owner: string }>(
      "SELECT tableowner AS owner FROM pg_tables WHERE tablename = 'audit_events'",
    );
    expect(owner.rows[0]?.owner).toBe(rows[0]?.user);
    expect((await rowsOf()).map((r) => r.kind).sort()).toEqual(["hold_reserved", "note_added", "parked"]);
  });

  it.each([
    ["UPDATE one row", "UPDATE audit_events SET kind = 'tampered' WHERE case_id = $1 AND kind = 'parked'", true],
    ["UPDATE a JSON field", `UPDATE audit_events SET evidence = '{"text":"rewritten"}' WHERE case_id = $1`, true],
    ["UPDATE every row", "UPDATE audit_events SET actor_label = 'nobody'", false],
    ["DELETE one row", "DELETE FROM audit_events WHERE case_id = $1 AND kind = 'note_added'", true],
    ["DELETE every row", "DELETE FROM audit_events", false],
    ["TRUNCATE", "TRUNCATE audit_events", false],
    ["TRUNCATE ... CASCADE", "TRUNCATE audit_events RESTART IDENTITY CASCADE", false],
  ])("%s is refused with an error and the rows are unchanged", async (_name, sql, withCase) => {
    const before = await rowsOf();
    const total = (await client.query("SELECT count(*)::int AS n FROM audit_events")).rows[0].n as number;
    const error = await refusal(sql, withCase ? [caseId] : []);
    expect(error).not.toBeNull();
    expect(error?.code).toBe("42501");
    expect(error?.message).toMatch(/append-only/);
    expect(await rowsOf()).toEqual(before);
    expect((await client.query("SELECT count(*)::int AS n FROM audit_events")).rows[0].n).toBe(total);
  });

  it("the refusal also holds outside an explicit transaction (autocommit)", async () => {
    const before = await rowsOf();
    const error = await client
      .query("DELETE FROM audit_events WHERE case_id = $1", [caseId])
      .then(() => null)
      .catch((e: pg.DatabaseError) => e);
    expect(error?.code).toBe("42501");
    expect(await rowsOf()).toEqual(before);
  });

  it("the ORM's update and delete are refused too", async () => {
    const before = await rowsOf();
    const first = before[0];
    if (!first) throw new Error("no audit row");
    await expect(
      ownerDb.auditEvent.update({ where: { id: BigInt(first.id) }, data: { kind: "tampered" } }),
    ).rejects.toThrow(/append-only/);
    await expect(ownerDb.auditEvent.deleteMany({ where: { caseId } })).rejects.toThrow(/append-only/);
    expect(await rowsOf()).toEqual(before);
  });

  it("appending still works", async () => {
    const before = await rowsOf();
    await client.query(
      "INSERT INTO audit_events (case_id, episode, actor_kind, actor_label, kind) VALUES ($1, 1, 'system', 'test', 'probe')",
      [caseId],
    );
    expect((await rowsOf()).length).toBe(before.length + 1);
  });
});
