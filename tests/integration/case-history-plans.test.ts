import { beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import type { Principal } from "@/lib/domain/principal";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { parkCase } from "@/lib/services/case/park-case";
import { caseHistory } from "@/lib/services/overview/case-history";
import { makeUser, parkInput, producer } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// Decision 066 and migration 20261206151000_case_history_indexes: the history page's three figures
// are read from the indexes made for them (opened and resolved index-only, from indexes that carry
// stage, provider and producer; parked again from the audit log's (kind, created_at) index), not by
// reading the tables. The statement explained is the very one the service sends, taken from it.
const { db } = openTestDb();

type PlanNode = { "Node Type": string; "Index Name"?: string; "Relation Name"?: string; Plans?: PlanNode[] };
const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

/** The statement caseHistory sends for this person and query, without running it. */
async function historyStatement(actor: Principal, query: Parameters<typeof caseHistory>[2]): Promise<Prisma.Sql> {
  const sent: Prisma.Sql[] = [];
  const capture = {
    $queryRaw: (sql: Prisma.Sql) => {
      sent.push(sql);
      return Promise.resolve([]);
    },
  } as unknown as Db;
  await caseHistory(capture, actor, query);
  const [statement] = sent;
  if (sent.length !== 1 || !statement) throw new Error(`expected one statement, got ${sent.length}`);
  return statement;
}

/**
 * The plan's nodes. As in the queue's index test (queue-search.test.ts), a test table this small is
 * read whole by choice; with that plan ruled out, only a usable index can serve each branch.
 */
async function scans(statement: Prisma.Sql): Promise<PlanNode[]> {
  const [row] = await db.$transaction(async (tx) => {
    await tx.$executeRawUnsafe("SET LOCAL enable_seqscan = off");
    return tx.$queryRaw<{ "QUERY PLAN": [{ Plan: PlanNode }] }[]>(Prisma.sql`EXPLAIN (FORMAT JSON) ${statement}`);
  });
  const plan = row?.["QUERY PLAN"][0].Plan;
  if (!plan) throw new Error("no plan");
  return nodes(plan);
}

/** The indexes the plan reads, once each per branch that reads them. */
const indexes = (all: PlanNode[]) => all.flatMap((n) => (n["Index Name"] ? [n["Index Name"]] : []));
/** Nodes that read a table's rows without an index: none may read cases or audit_events. */
const tableReads = (all: PlanNode[]) => all.filter((n) => n["Node Type"] === "Seq Scan").map((n) => n["Relation Name"]);

describe("the history page's plans", () => {
  beforeAll(async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    for (let i = 0; i < 20; i++) {
      const parked = await parkCase(db, producer(`plan-history-${i % 3}`), parkInput("generation_failed"));
      if (i % 2 === 0) await acceptFailure(db, reviewer, parked.caseId, { evidence: "the provider failed the job" });
    }
    await db.$executeRawUnsafe("ANALYZE cases");
    await db.$executeRawUnsafe("ANALYZE audit_events");
  });

  it("reads opened, resolved and parked again through the indexes made for them", async () => {
    const admin = await makeUser(db, ["admin"]);
    const plan = await scans(await historyStatement(admin, {}));
    // One index per figure; each parked-again event finds its case by the case's key.
    expect(indexes(plan).sort()).toEqual([
      "audit_events_kind_created_at_idx",
      "cases_history_opened_idx",
      "cases_history_resolved_idx",
      "cases_pkey",
    ]);
    expect(tableReads(plan)).toEqual([]);
  });
});
