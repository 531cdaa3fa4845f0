import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { resolvedCtes } from "@/lib/services/hold/writer/resolve";
import { acceptedReportStatement } from "@/lib/services/permit/report-accepted";
import { selectOwnedPermit } from "@/lib/services/provider-webhook/owned-completion";
import { openTestDb } from "./setup/test-db";

// Decision 081: the intake's and the producer's report's statements are prepared once per connection
// (decision 007), and a generic plan made while the tables were nearly empty is kept for the
// connection's life. Planned here exactly so (generic, on this file's empty tables), a duplicate's
// event, a reported or owned permit and its hold must each be read by its own key, never by walking
// an index of every row.
const client = new pg.Client({ connectionString: openTestDb().url });
await client.connect();
afterAll(() => client.end());

/** The generic plan of `query`, as a connection that has run it often enough keeps it. */
async function genericPlan(query: Prisma.Sql): Promise<string> {
  await client.query("SET plan_cache_mode = force_generic_plan");
  await client.query("DEALLOCATE ALL");
  await client.query(`PREPARE planned AS ${query.text}`);
  // An array parameter (the accepted report's unreadable providers) as PostgreSQL's array literal.
  const text = (value: unknown) => (Array.isArray(value) ? `{${value.map((v) => JSON.stringify(v))}}` : String(value));
  const literals = query.values.map((value) => client.escapeLiteral(text(value))).join(", ");
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

describe("the producer's accepted report's plans on empty tables", () => {
  it("updates the reported permit found through its attempt, not by walking every open permit", async () => {
    const producer = { kind: "api_key" as const, apiKeyId: "key-1", name: "studio" };
    const evidence = { summary: "accepted", observedAt: "2026-12-07T00:00:00Z" };
    const input = { operationId: "op-1", token: 1, outcome: "accepted" as const, providerJobId: "job-1", evidence };
    const plan = await genericPlan(acceptedReportStatement(producer, "att-1", input, "job-1", { storePrompts: false }));
    expect(plan).toContain("attempts_operation_ref_attempt_id_key");
    expect(plan).toContain("send_permits_attempt_ref_key");
    expect(plan).not.toContain("send_permits_one_open_per_operation");
    expect(plan).not.toContain("(provider_job_id IS NULL)");
  });
});

describe("a hot path's settlement plan on empty tables", () => {
  it("settles the hold it locked by its id, not one found by walking every held hold", async () => {
    const holdRef = "00000000-0000-0000-0000-000000000001";
    const settlement = resolvedCtes({
      holdRef,
      amountMicros: 1_000_000n,
      plan: { status: "settled", entries: [] },
      note: "settled",
      actorLabel: "api key studio",
      from: Prisma.sql`(SELECT ${holdRef}::uuid AS hold_ref) p`,
      where: Prisma.sql`h.id = p.hold_ref`,
    });
    const plan = await genericPlan(Prisma.sql`WITH ${settlement} SELECT id FROM settled`);
    expect(plan).toContain("holds_pkey");
    expect(plan).not.toContain("holds_held_currency_created_at");
  });
});
