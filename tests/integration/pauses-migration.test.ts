import { randomBytes, randomUUID } from "node:crypto";
import { cp, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { withDatabase } from "@/lib/db/embedded";
import { migrate } from "@/lib/db/migrate";
import { clientsEndedAfterAll } from "./helpers/database-before";

// Decision 070: the migration to one table of pauses keeps every running pause, of a person or of
// the breaker, and what the breaker's count starts from.
const ONE_TABLE = "20261207120000_one_table_of_pauses";
const connect = clientsEndedAfterAll();

/** A fresh database migrated to just before the one table of pauses, as an earlier deployment would be. */
async function databaseBefore(): Promise<string> {
  const serverUrl = inject("serverUrl");
  const name = `${inject("runPrefix")}_pau_${randomBytes(4).toString("hex")}`;
  const admin = await connect(serverUrl);
  await admin.query(`CREATE DATABASE "${name}"`);
  const dir = await mkdtemp(path.join(tmpdir(), "migrations-"));
  await cp("prisma/migrations", dir, { recursive: true });
  for (const n of (await readdir(dir)).filter((m) => m >= ONE_TABLE)) await rm(path.join(dir, n), { recursive: true });
  const url = withDatabase(serverUrl, name);
  await migrate(url, { dir });
  return url;
}

describe(`migration ${ONE_TABLE}`, () => {
  it("copies people's pauses and the breaker's pauses, closes the ended ones, and drops the old tables", async () => {
    const url = await databaseBefore();
    const client = await connect(url);
    const admin = randomUUID();
    await client.query(
      `INSERT INTO provider_breakers (provider, unknown_percent, window_seconds, min_outcomes, paused_until, tripped_at,
                                      counts_from, updated_by_id)
       VALUES ('runway', 50, 600, 4, now() + interval '5 minutes', now() - interval '5 minutes', NULL, $1),
              ('luma', 50, 600, 4, now() - interval '1 hour', now() - interval '70 minutes', now() - interval '2 hours', $1)`,
      [admin],
    );
    await client.query(
      `INSERT INTO producer_breaker_pauses (provider, producer, paused_until, tripped_at, counts_from)
       VALUES ('luma', 'shop-a', now() + interval '5 minutes', now() - interval '5 minutes', NULL)`,
    );
    await client.query(
      `INSERT INTO scope_pauses (kind, value, reason, paused_by_id, paused_by_label)
       VALUES ('provider', 'runway', 'Runway answers 502', $1, 'Ada'), ('model', 'video-1', 'garbage out', $1, 'Ada')`,
      [admin],
    );

    await migrate(url, { dir: path.resolve("prisma/migrations") });

    const { rows } = await client.query<{
      kind: string;
      value: string;
      at_provider: string;
      cause: string;
      paused_by_label: string;
      running: boolean;
      closed: boolean;
    }>(
      `SELECT kind::text, value, at_provider, cause::text, paused_by_label,
              (resumed_at IS NULL AND (until IS NULL OR until > now())) AS running, resumed_at IS NOT NULL AS closed
       FROM pauses ORDER BY cause::text, kind::text, value`,
    );
    expect(rows.map((r) => [r.cause, r.kind, r.value, r.at_provider, r.running, r.closed])).toEqual([
      ["breaker", "producer", "shop-a", "luma", true, false],
      ["breaker", "provider", "luma", "", false, true],
      ["breaker", "provider", "runway", "", true, false],
      ["person", "model", "video-1", "", true, false],
      ["person", "provider", "runway", "", true, false],
    ]);
    expect(rows.find((r) => r.cause === "person")?.paused_by_label).toBe("Ada");
    // The settings and the count's start stay with the breaker.
    const breakers = await client.query(
      "SELECT provider, unknown_percent, counts_from IS NOT NULL AS counted FROM provider_breakers ORDER BY provider",
    );
    expect(breakers.rows).toEqual([
      { provider: "luma", unknown_percent: 50, counted: true },
      { provider: "runway", unknown_percent: 50, counted: false },
    ]);
    const old = await client.query(
      `SELECT count(*)::int AS n FROM information_schema.tables
       WHERE table_name IN ('scope_pauses', 'producer_breaker_pauses')`,
    );
    expect(old.rows[0]?.n).toBe(0);
  });
});
