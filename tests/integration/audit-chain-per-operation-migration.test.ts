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
});
