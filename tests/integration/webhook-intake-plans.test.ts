import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { selectOwnedPermit } from "@/lib/services/provider-webhook/owned-completion";
import { openTestDb } from "./setup/test-db";

// Decision 081: the intake's statements are prepared once per connection (decision 007), and a
// generic plan made while the tables were nearly empty is kept for the connection's life. Planned
// here exactly so (generic, on this file's empty tables), a duplicate's event and an owned job's
// permit and hold must each be read by its own key, never by walking an index of every row.
const client = new pg.Client({ connectionString: openTestDb().url });
await client.connect();
afterAll(() => client.end());

/** The generic plan of `query`, as a connection that has run it often enough keeps it. */
async function genericPlan(query: Prisma.Sql): Promise<string> {
  await client.query("SET plan_cache_mode = force_generic_plan");
  await client.query("DEALLOCATE ALL");
  await client.query(`PREPARE planned AS ${query.text}`);
  const literals = query.values.map((value) => client.escapeLiteral(String(value))).join(", ");
  const { rows } = await client.query<{ "QUERY PLAN": string }>(`EXPLAIN EXECUTE planned(${literals})`);
  return rows.map((row) => row["QUERY PLAN"]).join("\n");
}

describe("the webhook intake's plans on empty tables", () => {
  it("reads an event by its unique key, not by the provider's every row", async () => {
    const plan = await genericPlan(
      Prisma.sql`SELECT outcome, case_ref FROM provider_webhooks WHERE provider = ${"replicate"} AND webhook_id = ${"msg_1"}`,
    );
    expect(plan).toContain("provider_webhooks_provider_webhook_id_key");
    expect(plan).not.toContain("provider_webhooks_job");
  });

  it("reaches an owned job's permit through its attempt and the hold through its id", async () => {
    const plan = await genericPlan(selectOwnedPermit("replicate", "job-1"));
    expect(plan).toContain("send_permits_attempt_ref_key");
    expect(plan).toContain("holds_pkey");
    expect(plan).not.toContain("send_permits_one_open_per_operation on send_permits sp");
    expect(plan).not.toContain("holds_held_currency_created_at");
  });
});
