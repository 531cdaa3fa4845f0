import { describe, expect, it } from "vitest";
import { listCases } from "@/lib/services/case/list-cases";
import { parkCase } from "@/lib/services/case/park-case";
import { type ListCasesQuery, listCasesSchema } from "@/lib/validation/list-cases";
import { makeUser, parkInput, producer } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// The queue's keyset pages (one statement over the open-case indexes): every open case once, in
// order, whichever sort; and a cursor the list did not issue is the caller's mistake (400), never a
// server error.
const { db } = openTestDb();
const shop = producer("keyset-shop");
const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

describe("listCases keyset pages", () => {
  it("walk every open case once, in order, by age and by amount", async () => {
    const operator = await makeUser(db, ["operator"]);
    for (let i = 0; i < 7; i++) {
      const input = parkInput("polling");
      // Equal amounts in pairs, so the id breaks the ties.
      await parkCase(db, shop, { ...input, hold: { ...input.hold, amountMicros: 10_000 * (1 + (i >> 1)) } });
    }
    for (const sort of ["age", "amount"] as const) {
      const seen: { openedAt: string; heldMicros: number; id: string }[] = [];
      let cursor: string | undefined;
      do {
        const page = await listCases(
          db,
          operator,
          listCasesSchema.parse({ sort, limit: 3, ...(cursor ? { cursor } : {}) }),
        );
        seen.push(...page.items);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      const all = await listCases(db, operator, listCasesSchema.parse({ sort, limit: 200 }));
      expect(seen.map((c) => c.id)).toEqual(all.items.map((c) => c.id));
      expect(new Set(seen.map((c) => c.id)).size).toBe(7);
      const key = (c: (typeof seen)[number]) => (sort === "age" ? c.openedAt : String(c.heldMicros).padStart(12, "0"));
      const ordered = [...seen].sort((a, b) =>
        sort === "age"
          ? key(a).localeCompare(key(b)) || a.id.localeCompare(b.id)
          : key(b).localeCompare(key(a)) || b.id.localeCompare(a.id),
      );
      expect(seen).toEqual(ordered);
    }
  });

  it("walk every case once, in order, by stage and by provider, either way round (ties broken by id)", async () => {
    const operator = await makeUser(db, ["operator"]);
    const sorted = producer("keyset-sorts");
    const stages = ["polling", "delivery", "generation_failed", "submission_uncertain"] as const;
    const providers = ["replicate", "fal", "runway"] as const;
    for (let i = 0; i < 9; i++) {
      const stage = stages[i % stages.length] ?? "polling";
      await parkCase(db, sorted, parkInput(stage, { provider: providers[i % providers.length] ?? "fal" }));
    }
    const stageOrder = ["submission_uncertain", "polling", "delivery", "generation_failed"];
    for (const sort of ["stage", "stage_desc", "provider", "provider_desc"] as const) {
      const seen: { id: string; stage: string; provider: string }[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await listCases(
          db,
          operator,
          listCasesSchema.parse({ sort, limit: 2, producer: "keyset-sorts", ...(cursor ? { cursor } : {}) }),
        );
        seen.push(...page.items);
        cursor = page.nextCursor ?? undefined;
        pages++;
      } while (cursor && pages < 20);
      expect(new Set(seen.map((c) => c.id)).size, sort).toBe(9);
      const key = (c: (typeof seen)[number]) =>
        sort.startsWith("stage") ? String(stageOrder.indexOf(c.stage)) : c.provider;
      const descending = sort.endsWith("_desc");
      const ordered = [...seen].sort((a, b) => {
        const order = key(a).localeCompare(key(b)) || a.id.localeCompare(b.id);
        return descending ? -order : order;
      });
      expect(
        seen.map((c) => c.id),
        sort,
      ).toEqual(ordered.map((c) => c.id));
    }
  });

  it("refuses a cursor it did not issue with invalid_request", async () => {
    const operator = await makeUser(db, ["operator"]);
    const id = "00000000-0000-4000-8000-000000000000";
    const forged: [ListCasesQuery["sort"], string][] = [
      ["amount", cursorOf({ v: "12x", id })],
      ["age", cursorOf({ v: "not a date", id })],
      ["age", cursorOf({ v: "2026-01-01T00:00:00Z", id: "x" })],
      ["age", "%%%"],
      ["stage", cursorOf({ v: "no_such_stage", id })],
    ];
    for (const [sort, cursor] of forged) {
      const refused = await listCases(db, operator, listCasesSchema.parse({ sort, cursor })).then(
        () => "no error",
        (error: { code?: string }) => error.code,
      );
      expect(refused).toBe("invalid_request");
    }
  });
});
