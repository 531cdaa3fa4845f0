import { randomUUID } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import { GENESIS_HASH } from "@/lib/audit/canonical";
import { verifyAuditChains } from "@/lib/audit/verify-chain";
import { migrate } from "@/lib/db/migrate";
import { clientsEndedAfterAll, databaseBefore } from "./helpers/database-before";

// Demo databases and older installs already have audit rows: the migration chains them in
// (case, id) order, and the chain goes on from there.
const CHAIN = "20261202010000_audit_chain";
const connect = clientsEndedAfterAll();

describe(`migration ${CHAIN}`, () => {
  it("chains existing rows per case in id order, keeps the append-only trigger, and appends go on from the head", async () => {
    // The backfill runs in one time zone and the verifier in another: no zone may enter the hash.
    const url = await databaseBefore(CHAIN, { timezone: "Asia/Kolkata" });
    const before = await connect(url);
    const [a, b] = [randomUUID(), randomUUID()];
    // Interleaved cases, case-less events, and text that tests the canonical form's edges.
    const rows: [string | null, string, string, string | null][] = [
      [a, "parked", "api key shop", '{"summary":"línea 1\\nlínea 2","n":1.50}'],
      [null, "user_created", 'Ana "admin"', null],
      [b, "parked", "api key shop", '{"emoji":"🎬","nested":{"z":1,"a":[true,null]}}'],
      [a, "note_added", "Bo\nNewline", '{"text":"kind=seq=1\\n"}'],
      [b, "approved", "Ana", null],
      [a, "approved", "Ana", "[]"],
      [null, "token_created", "Ana", '{"name":"ci"}'],
    ];
    for (const [caseId, kind, label, evidence] of rows) {
      await before.query(
        `INSERT INTO audit_events (case_id, episode, actor_kind, actor_id, actor_label, kind, evidence, created_at)
         VALUES ($1, 1, 'user', 'user-1', $2, $3, $4::jsonb, now() - interval '3 days' + random() * interval '1 day')`,
        [caseId, label, kind, evidence],
      );
    }
    await before.end();

    expect((await migrate(url)).applied[0]).toBe(CHAIN);
    const admin = await connect(inject("serverUrl"));
    await admin.query(`ALTER DATABASE "${new URL(url).pathname.slice(1)}" SET timezone = 'America/St_Johns'`);
    const after = await connect(url);

    const chain = async (caseId: string | null) =>
      (
        await after.query<{ id: string; chain_seq: number; prev_hash: Buffer; hash: Buffer; kind: string }>(
          `SELECT id::text, chain_seq, prev_hash, hash, kind FROM audit_events
           WHERE case_id IS NOT DISTINCT FROM $1::uuid ORDER BY id`,
          [caseId],
        )
      ).rows;
    for (const [caseId, kinds] of [
      [a, ["parked", "note_added", "approved"]],
      [b, ["parked", "approved"]],
      [null, ["user_created", "token_created"]],
    ] as const) {
      const links = await chain(caseId);
      expect(links.map((l) => l.kind)).toEqual(kinds);
      expect(links.map((l) => l.chain_seq)).toEqual(kinds.map((_, i) => i + 1));
      links.forEach((l, i) => {
        expect(l.prev_hash.equals(i === 0 ? GENESIS_HASH : (links[i - 1]?.hash ?? Buffer.alloc(0)))).toBe(true);
      });
    }
    expect(await verifyAuditChains(after)).toMatchObject({ chains: 3, events: 7, brokenChains: 0, broken: [] });

    // Rule 8 still holds after the backfill set its trigger aside.
    await expect(after.query("UPDATE audit_events SET kind = 'x' WHERE case_id = $1", [a])).rejects.toThrow(
      /append-only/,
    );
    await after.query(
      "INSERT INTO audit_events (case_id, actor_kind, actor_label, kind) VALUES ($1, 'system', 'worker', 'claimed')",
      [a],
    );
    const links = await chain(a);
    expect(links.at(-1)?.chain_seq).toBe(4);
    expect(links.at(-1)?.prev_hash.equals(links[2]?.hash ?? Buffer.alloc(0))).toBe(true);
    expect(await verifyAuditChains(after)).toMatchObject({ events: 8, brokenChains: 0 });
  });

  it("applies to an empty database too", async () => {
    // The backfill runs in one time zone and the verifier in another: no zone may enter the hash.
    const url = await databaseBefore(CHAIN, { timezone: "Asia/Kolkata" });
    expect((await migrate(url)).applied[0]).toBe(CHAIN);
    const client = await connect(url);
    expect(await verifyAuditChains(client)).toMatchObject({ chains: 0, events: 0, brokenChains: 0 });
  });
});
