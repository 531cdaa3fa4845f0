import { beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { requestFingerprint } from "@/lib/domain/fingerprint";
import { parkCase } from "@/lib/services/case/park-case";
import { chargeCandidatesSql } from "@/lib/services/usage/charge-candidates";
import { importUsageFile } from "@/lib/services/usage/import-usage-file";
import { listUnexplainedCharges } from "@/lib/services/usage/list-unexplained-charges";
import { makeUser, parkInput, producer } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// "Charges no operation explains" reads a page's candidate sends in one statement whatever the
// page's size, and each charge's window reads only the job-less sends of the two days around it
// (migration 20261208010000_jobless_attempts_by_time), however many the product kept from other days.
const { db } = openTestDb();
const MODEL = "minimax/video-01";
const HOUR = 3_600_000;
const SEEDED = 20_000;

type PlanNode = {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  Plans?: PlanNode[];
};
const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

/** Job-less sends of uncertain submissions, one every 30 minutes back over more than a year, each with a hold. */
async function seedJoblessSends(count: number) {
  await db.$executeRawUnsafe(
    `WITH ops AS (
       INSERT INTO operations (producer, operation_id, provider, model, request_fingerprint)
       SELECT 'plan-seed', 'plan-' || n, 'replicate', $2, 'sha256:' || encode(sha256(convert_to('plan-' || n, 'UTF8')), 'hex')
       FROM generate_series(1, $1::int) AS n
       RETURNING id, operation_id, request_fingerprint
     ), atts AS (
       INSERT INTO attempts (operation_ref, attempt_id, kind, submitted_at)
       SELECT id, operation_id || '-a1', 'original',
              now() - split_part(operation_id, '-', 2)::int * interval '30 minutes'
       FROM ops
       RETURNING id, operation_ref, attempt_id, submitted_at
     ), cs AS (
       INSERT INTO cases (operation_ref, attempt_ref, producer, operation_id, attempt_id, provider, model, stage,
                          state, version, registered_stage, registered_fingerprint, held_micros, currency,
                          last_evidence, submitted_at)
       SELECT ops.id, atts.id, 'plan-seed', ops.operation_id, atts.attempt_id, 'replicate', $2,
              'submission_uncertain', 'parked', 1, 'submission_uncertain', ops.request_fingerprint, 1000, 'USD',
              jsonb_build_object('summary', 'seeded'), atts.submitted_at
       FROM ops JOIN atts ON atts.operation_ref = ops.id
       RETURNING id, attempt_ref, operation_id
     )
     INSERT INTO holds (hold_id, producer, case_id, attempt_ref, amount_micros, currency)
     SELECT 'hold-' || operation_id, 'plan-seed', id, attempt_ref, 1000, 'USD' FROM cs`,
    count,
    MODEL,
  );
  for (const table of ["attempts", "operations", "cases", "holds"]) await db.$executeRawUnsafe(`ANALYZE ${table}`);
}

/** A handle that counts the statements a service sends through it. */
function counting(target: Db) {
  const sent: unknown[] = [];
  const handle = new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver);
      if (property !== "$queryRaw" || typeof value !== "function") return value;
      return (...args: unknown[]) => {
        sent.push(args[0]);
        return value.apply(object, args);
      };
    },
  });
  return { handle, sent };
}

describe("the list's candidate sends", () => {
  beforeAll(async () => {
    await seedJoblessSends(SEEDED);
    const shop = producer("plan-shop");
    const finance = await makeUser(db, ["finance"]);
    const rows: string[] = [];
    for (let i = 0; i < 12; i++) {
      const at = new Date(Date.now() - (i + 1) * HOUR);
      await parkCase(
        db,
        shop,
        parkInput("submission_uncertain", {
          model: MODEL,
          requestFingerprint: requestFingerprint({ prompt: `plan ${i}` }),
          submittedAt: at.toISOString(),
        }),
      );
      rows.push(`plan-job-${i},0.05,USD,${at.toISOString()},${MODEL}`);
    }
    await importUsageFile(db, finance, {
      provider: "replicate",
      format: "generic",
      fileName: "plan.csv",
      content: `provider_job_id,amount,currency,time,model\n${rows.join("\n")}\n`,
    });
  });

  it("are read in one statement for the whole page", async () => {
    const finance = await makeUser(db, ["finance"]);
    const { handle, sent } = counting(db);
    const page = await listUnexplainedCharges(handle, finance, { provider: "replicate", page: 1, pageSize: 100 });
    expect(page.charges.filter((c) => c.providerJobId?.startsWith("plan-job-"))).toHaveLength(12);
    expect(page.charges.every((c) => c.candidates.length > 0)).toBe(true);
    // The count, the page's keys, its rows, and the candidates of all its charges.
    expect(sent).toHaveLength(4);
  });

  it("read the job-less sends near each charge through the time index, not the whole attempts table", async () => {
    const charges = Array.from({ length: 50 }, (_, i) => ({
      provider: "replicate",
      at: new Date(Date.now() - i * 7 * 24 * HOUR),
    }));
    const [row] = await db.$queryRaw<{ "QUERY PLAN": [{ Plan: PlanNode }] }[]>(
      Prisma.sql`EXPLAIN (ANALYZE, FORMAT JSON) ${chargeCandidatesSql(charges)}`,
    );
    const plan = row?.["QUERY PLAN"][0].Plan;
    if (!plan) throw new Error("no plan");
    const attempts = nodes(plan).filter((n) => n["Relation Name"] === "attempts");
    expect(attempts.map((n) => n["Node Type"])).not.toContain("Seq Scan");
    expect(attempts.map((n) => n["Index Name"])).toEqual(["attempts_jobless_sent_at"]);
    // About 96 sends fall in each charge's two days; the key on (provider, provider_job_id) would
    // read every job-less send of the provider for each charge and filter out all but those.
    const read = attempts.reduce(
      (sum, n) => sum + ((n["Actual Rows"] ?? 0) + (n["Rows Removed by Filter"] ?? 0)) * (n["Actual Loops"] ?? 1),
      0,
    );
    expect(read).toBeLessThan(charges.length * 200);
  });
});
