import { randomUUID } from "node:crypto";
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { verifyAuditChains } from "@/lib/audit/verify-chain";
import { migrate } from "@/lib/db/migrate";
import { clientsEndedAfterAll, databaseBefore } from "./helpers/database-before";

// An install that has run: its permit events are on the one system chain. After the migration those
// events keep their hashes and positions, the system chain goes on for what belongs to no operation,
// and an operation's new events start its own chain (decision 059).
const PER_OPERATION = "20261205160000_audit_chain_per_operation";
const connect = clientsEndedAfterAll();

const append = (client: pg.Client, row: { caseId?: string; operationRef?: string; kind: string; after?: object }) =>
  client.query(
    `INSERT INTO audit_events (case_id, ${row.operationRef ? "operation_ref, " : ""}actor_kind, actor_label, kind, after)
     VALUES ($1, ${row.operationRef ? "$4, " : ""}'system', 'test', $2, $3::jsonb)`,
    [
      row.caseId ?? null,
      row.kind,
      row.after ? JSON.stringify(row.after) : null,
      ...(row.operationRef ? [row.operationRef] : []),
    ],
  );

describe(`migration ${PER_OPERATION}`, () => {
  it("keeps the system chain's events verifying, and chains an operation's next events apart", async () => {
    const url = await databaseBefore(PER_OPERATION);
    const before = await connect(url);
    const caseId = randomUUID();
    await append(before, { kind: "permit_issued", after: { producer: "shop", operationId: "order-1" } });
    await append(before, { kind: "user_created" });
    await append(before, { caseId, kind: "parked" });
    await before.query(
      `INSERT INTO audit_redactions (producer, operation_id, through_seq, since_at, days, reason, redacted)
       VALUES ('shop', 'order-0', 2, now() - interval '40 days', 30, 'retention policy 30 days', 0)`,
    );
    await before.end();

    expect((await migrate(url)).applied[0]).toBe(PER_OPERATION);
    const after = await connect(url);
    const verify = () => verifyAuditChains(after, { batchSize: 2 });
    expect(await verify()).toMatchObject({ chains: 2, events: 3, brokenChains: 0 });
    // A redaction recorded on the system chain keeps its position there.
    expect((await after.query("SELECT through_seq, system_through_seq FROM audit_redactions")).rows).toEqual([
      { through_seq: 2, system_through_seq: 2 },
    ]);

    const operationRef = randomUUID();
    await append(after, { operationRef, kind: "permit_issued", after: { producer: "shop", operationId: "order-2" } });
    await append(after, { operationRef, kind: "permit_accepted", after: { producer: "shop", operationId: "order-2" } });
    await append(after, { kind: "token_created" });
    await append(after, { caseId, kind: "note_added" });
    const heads = (await after.query('SELECT chain_key, seq FROM audit_chain_heads ORDER BY chain_key COLLATE "C"'))
      .rows;
    expect(heads).toEqual([
      { chain_key: caseId, seq: 2 },
      { chain_key: `operation:${operationRef}`, seq: 2 },
      { chain_key: "system", seq: 3 },
    ]);
    expect(await verify()).toMatchObject({ chains: 3, events: 7, brokenChains: 0 });
  });

  it("judges an operation's redaction made on the system chain before it as justified", async () => {
    const url = await databaseBefore(PER_OPERATION);
    const before = await connect(url);
    // An operation that ended under a 30-day policy, whose permit event was redacted by the owner's
    // function while permit events still went on the system chain.
    const fingerprint = `sha256:${"a".repeat(64)}`;
    const {
      rows: [operation],
    } = await before.query(
      `INSERT INTO operations (producer, operation_id, provider, model, request_fingerprint, created_at)
       VALUES ('shop', 'order-old', 'replicate', 'omni-flash-720p', $1, now() - interval '40 days') RETURNING id`,
      [fingerprint],
    );
    await before.query(`INSERT INTO retention_policy_log (scope, days) VALUES ('*', 30)`);
    await before.query(
      `INSERT INTO audit_events (actor_kind, actor_label, kind, after, evidence)
       VALUES ('system', 'test', 'permit_reported', $1::jsonb, $2::jsonb)`,
      [JSON.stringify({ producer: "shop", operationId: "order-old" }), JSON.stringify({ summary: "a red fox" })],
    );
    await append(before, { kind: "user_created" });
    const {
      rows: [redaction],
    } = await before.query("SELECT redacted FROM audit_redact_operation($1::uuid)", [operation.id]);
    expect(redaction.redacted).toBe(1);
    await before.end();

    expect((await migrate(url)).applied[0]).toBe(PER_OPERATION);
    const after = await connect(url);
    expect(await verifyAuditChains(after, { batchSize: 2 })).toMatchObject({
      chains: 1,
      events: 2,
      redactedFields: 1,
      brokenChains: 0,
    });
  });
});
