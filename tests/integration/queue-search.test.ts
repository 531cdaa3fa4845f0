import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { caseFilterConditions } from "@/lib/services/case/case-filter";
import { caseNeighbours } from "@/lib/services/case/case-neighbours";
import { countCases } from "@/lib/services/case/count-cases";
import { listCases } from "@/lib/services/case/list-cases";
import { parkCase } from "@/lib/services/case/park-case";
import { listCasesSchema } from "@/lib/validation/list-cases";
import { makeUser, parkInput, producer } from "./fixtures";
import { previewApproval } from "./helpers/bulk-approval";
import { openTestDb } from "./setup/test-db";

// The queue's partial ID search, counts, four orders and neighbours, across producers and states:
// what the list shows is what its count says and what a bulk approval by the same filter touches.
const { db } = openTestDb();
const tag = () => randomBytes(3).toString("hex");
const list = (user: Awaited<ReturnType<typeof makeUser>>, query: Record<string, unknown>) =>
  listCases(db, user, listCasesSchema.parse({ limit: 200, ...query }));

describe("queue search", () => {
  it("finds part of an operation, attempt or provider job ID, for every producer, case-insensitively", async () => {
    const operator = await makeUser(db, ["operator"]);
    const t = tag();
    const a = await parkCase(db, producer(`shop-a-${t}`), parkInput("polling", { operationId: `Order-${t}-1016` }));
    const b = await parkCase(db, producer(`shop-b-${t}`), parkInput("polling", { operationId: `order-${t}-1016` }));
    const other = await parkCase(
      db,
      producer(`shop-a-${t}`),
      parkInput("delivery", { operationId: `order-${t}-2020` }),
    );
    const ids = async (query: Record<string, unknown>) => (await list(operator, query)).items.map((c) => c.id).sort();

    expect(await ids({ q: `${t}-1016` })).toEqual([a.caseId, b.caseId].sort());
    expect(await ids({ q: `ORDER-${t}-10` })).toEqual([a.caseId, b.caseId].sort());
    expect(await ids({ q: `${t}-1016`, producer: `shop-b-${t}` })).toEqual([b.caseId]);
    // The attempt ID ("-a1") and the provider job ID ("job-...") are searched as well.
    expect(await ids({ q: `${t}-2020-a1` })).toEqual([other.caseId]);
    expect(await ids({ q: `job-order-${t}-20` })).toEqual([other.caseId]);
    // LIKE's wildcards are text, not patterns.
    expect(await ids({ q: `${t}%1016` })).toEqual([]);
    expect(await ids({ q: `${t}_1016` })).toEqual([]);
    // Short text has no trigram: it names a whole ID.
    expect(await ids({ q: "10" })).toEqual([]);
  });

  it("takes an ID typed in full as that ID, and a part as every ID containing it", async () => {
    const operator = await makeUser(db, ["operator"]);
    const t = tag();
    const one = await parkCase(db, producer(`shop-${t}`), parkInput("delivery", { operationId: `full-${t}-1` }));
    const ten = await parkCase(db, producer(`shop-${t}`), parkInput("delivery", { operationId: `full-${t}-10` }));
    const ids = async (q: string) => (await list(operator, { q })).items.map((c) => c.id).sort();
    expect(await ids(`full-${t}-1`)).toEqual([one.caseId]);
    expect(await ids(`job-full-${t}-10`)).toEqual([ten.caseId]);
    expect(await ids(`full-${t}-`)).toEqual([one.caseId, ten.caseId].sort());
  });

  it("finds resolved cases when the view asks for them, and counts what it lists", async () => {
    const operator = await makeUser(db, ["operator"]);
    const t = tag();
    const shop = producer(`shop-${t}`);
    for (let i = 0; i < 3; i++) await parkCase(db, shop, parkInput("polling", { operationId: `count-${t}-${i}` }));
    const resolved = await parkCase(db, shop, parkInput("polling", { operationId: `count-${t}-9` }));
    await db.case.update({ where: { id: resolved.caseId }, data: { state: "resolved" } });
    expect((await list(operator, { q: `count-${t}` })).items).toHaveLength(3);
    expect((await list(operator, { q: `count-${t}`, state: "resolved" })).items.map((c) => c.id)).toEqual([
      resolved.caseId,
    ]);
    const count = await countCases(db, operator, listCasesSchema.parse({ q: `count-${t}` }));
    expect(count).toEqual({ count: 3, more: false });
    expect(await countCases(db, operator, listCasesSchema.parse({ q: `count-${t}`, stage: "delivery" }))).toEqual({
      count: 0,
      more: false,
    });
  });

  it("reads the same cases whether the matches are fetched by id, walked in order or read by the trigram index", async () => {
    const t = tag();
    const shop = producer(`shop-${t}`);
    for (let i = 0; i < 6; i++) await parkCase(db, shop, parkInput("polling", { operationId: `dense-${t}-${i}` }));
    // A page larger than the matches, so the view's first rows cannot fill it and the walk must.
    const page = { where: [Prisma.sql`state <> 'resolved'`], order: Prisma.sql`opened_at ASC, id ASC`, rows: 10 };
    const read = async (options: Parameters<typeof caseFilterConditions>[4]) => {
      const where = await caseFilterConditions(db, { q: `dense-${t}` }, null, new Date(), options);
      const rows = await db.$queryRaw<{ id: string }[]>(
        Prisma.sql`SELECT id::text FROM cases WHERE state <> 'resolved' AND ${Prisma.join(where, " AND ")} ORDER BY opened_at, id`,
      );
      return { rows: rows.map((r) => r.id), sql: where.map((w) => w.sql).join(" ") };
    };
    const byIds = await read({ searchIdsCap: 100 });
    expect(byIds.sql).toContain("ANY");
    expect(byIds.rows).toHaveLength(6);
    // Past the cap a page walks its order (and names what it found); a count, or a read with no
    // page to fill, goes through the trigram index.
    const walked = await read({ searchIdsCap: 2, page });
    const counted = await read({ searchIdsCap: 2, counting: true });
    const unpaged = await read({ searchIdsCap: 2 });
    expect(walked.sql).toContain("ANY");
    expect(counted.sql).toContain("ILIKE");
    expect(unpaged.sql).toEqual(counted.sql);
    for (const other of [walked, counted, unpaged]) expect(other.rows).toEqual(byIds.rows);
  });

  it("reads a page of a dense search from the view's first rows, the same page as any other plan", async () => {
    const operator = await makeUser(db, ["operator"]);
    const t = tag();
    const shop = producer(`shop-${t}`);
    for (let i = 0; i < 4; i++) await parkCase(db, shop, parkInput("polling", { operationId: `win-${t}-${i}` }));
    const page = {
      where: [Prisma.sql`state <> 'resolved'`],
      order: Prisma.sql`opened_at ASC, id ASC`,
      rows: 3,
    };
    // With the id cap below the matches, only the window can answer with ids.
    const where = await caseFilterConditions(db, { q: `win-${t}` }, null, new Date(), { searchIdsCap: 2, page });
    expect(where.map((w) => w.sql).join(" ")).toContain("ANY");
    const windowed = await db.$queryRaw<{ id: string }[]>(
      Prisma.sql`SELECT id::text FROM cases WHERE ${Prisma.join(where, " AND ")} ORDER BY opened_at, id`,
    );
    const listed = await list(operator, { q: `win-${t}`, limit: 2 });
    expect(windowed.map((r) => r.id).slice(0, 2)).toEqual(listed.items.map((c) => c.id));
    expect(windowed).toHaveLength(3);
  });

  it("looks the text up through the trigram index", async () => {
    // A table this small is read whole; with that plan ruled out, the index must match the expression.
    const plan = await db.$transaction(async (tx) => {
      await tx.$executeRawUnsafe("SET LOCAL enable_seqscan = off");
      return tx.$queryRawUnsafe<{ "QUERY PLAN": string }[]>(
        `EXPLAIN SELECT id FROM cases WHERE (operation_id || E'\\x1f' || attempt_id || E'\\x1f' || coalesce(provider_job_id, '')) ILIKE '%abc1016%' LIMIT 5001`,
      );
    });
    expect(plan.map((r) => r["QUERY PLAN"]).join("\n")).toContain("cases_ids_trgm");
  });
});

describe("queue orders and neighbours", () => {
  it("walks every case once in each of the four orders, and each case's neighbours are its rows' neighbours", async () => {
    const operator = await makeUser(db, ["operator"]);
    const t = tag();
    const shop = producer(`shop-${t}`);
    for (let i = 0; i < 5; i++) {
      const input = parkInput("delivery", { operationId: `nb-${t}-${i}` });
      await parkCase(db, shop, { ...input, hold: { ...input.hold, amountMicros: 10_000 * (1 + (i % 3)) } });
    }
    for (const sort of ["age", "newest", "amount", "smallest"] as const) {
      const view = listCasesSchema.parse({ q: `nb-${t}`, sort });
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await listCases(db, operator, { ...view, limit: 2, ...(cursor ? { cursor } : {}) });
        seen.push(...page.items.map((c) => c.id));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(new Set(seen).size).toBe(5);
      for (const [i, id] of seen.entries()) {
        const { previous, next } = await caseNeighbours(db, operator, view, id);
        expect(previous?.id ?? null).toBe(seen[i - 1] ?? null);
        expect(next?.id ?? null).toBe(seen[i + 1] ?? null);
      }
    }
    const newest = (await list(operator, { q: `nb-${t}`, sort: "newest" })).items.map((c) => c.id);
    const oldest = (await list(operator, { q: `nb-${t}`, sort: "age" })).items.map((c) => c.id);
    expect(newest).toEqual([...oldest].reverse());
  });
});

describe("bulk approval by a filter", () => {
  it("dry-runs and approves exactly the cases the queue lists for the same partial search", async () => {
    const reviewer = await makeUser(db, ["operator", "reviewer"]);
    const t = tag();
    for (const name of ["a", "b"]) {
      const input = parkInput("polling", { operationId: `bulk-${t}-77`, providerJobId: `job-${name}-${t}` });
      await parkCase(db, producer(`shop-${name}-${t}`), input);
    }
    await parkCase(db, producer(`shop-a-${t}`), parkInput("polling", { operationId: `bulk-${t}-88` }));
    const filter = { q: `${t}-77`, stage: "polling" } as const;
    const shown = await list(reviewer, filter);
    expect(shown.items).toHaveLength(2);
    const shownIds = shown.items.map((c) => c.id).sort();
    const target = { kind: "filter" as const, filter };
    const { preview, execute } = await previewApproval(db, reviewer, { target, evidence: "job still running" });
    expect(preview).toMatchObject({ matching: 2, willAct: 2, skipped: [] });
    expect(preview.cases.map((c) => c.caseId).sort()).toEqual(shownIds);
    expect(preview.heldByCurrency).toEqual([{ currency: "USD", micros: 200_000 }]);
    const done = await execute();
    expect(done.applied).toBe(2);
    expect([...done.appliedCaseIds].sort()).toEqual(shownIds);
    const ready = await db.case.findMany({
      where: { operationId: { contains: t } },
      select: { id: true, state: true },
    });
    const approved = ready
      .filter((c) => c.state === "ready")
      .map((c) => c.id)
      .sort();
    expect(approved).toEqual(shownIds);
  });
});
