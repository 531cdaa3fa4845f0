import { describe, expect, it } from "vitest";
import { approveCase } from "@/lib/services/case/approve-case";
import { caseNeighbours } from "@/lib/services/case/case-neighbours";
import { listCases } from "@/lib/services/case/list-cases";
import { parkCase } from "@/lib/services/case/park-case";
import { claimActions, proofOf } from "@/lib/services/claim/claim-actions";
import { finishAction } from "@/lib/services/claim/finish-action";
import { listCasesSchema } from "@/lib/validation/list-cases";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// The queue's order by last attempt (decision 069): the case row carries when its episode's last
// action ended, written by the statement that ends it, and keyset pages over it (never-attempted
// cases counted as attempted at the beginning of time) list every case once, ties and all.
const { db } = openTestDb();
const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

async function walk(name: string, sort: "attempt" | "attempt_recent", limit: number) {
  const operator = await makeUser(db, ["operator"]);
  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await listCases(
      db,
      operator,
      listCasesSchema.parse({ sort, limit, producer: name, ...(cursor ? { cursor } : {}) }),
    );
    seen.push(...page.items.map((c) => c.id));
    cursor = page.nextCursor ?? undefined;
    pages++;
  } while (cursor && pages < 50);
  return seen;
}

describe("the queue sorted by last attempt", () => {
  it("an action that ends sets the case's last attempt in its own statement; one handed back does not", async () => {
    const shop = producer("attempt-writer");
    const reviewer = await makeUser(db, ["reviewer", "operator"]);
    const { caseId } = await parkCase(db, shop, parkInput("polling"));
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).lastAttemptAt).toBeNull();
    await approveCase(db, reviewer, caseId, { action: "resume_poll", evidence: "approved" });
    const w = worker();
    const claim = async () => {
      for (let round = 0; round < 20; round++) {
        const mine = (await claimActions(db, w, { max: 50 })).find((c) => c.caseId === caseId);
        if (mine) return mine;
      }
      throw new Error("the case was never claimed");
    };
    expect(await finishAction(db, w, proofOf(await claim(), w.workerId), { kind: "released" })).toBe("released");
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).lastAttemptAt).toBeNull();

    const claimed = await claim();
    expect(
      await finishAction(db, w, proofOf(claimed, w.workerId), { kind: "unresolved", evidence: "still failing" }),
    ).toBe("parked");
    const kase = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    const action = await db.recoveryAction.findUniqueOrThrow({ where: { id: claimed.actionId } });
    expect(action.finishedAt).not.toBeNull();
    expect(kase.lastAttemptAt?.toISOString()).toBe(action.finishedAt?.toISOString());

    // The list shows that very attempt, and the order by it finds the case after a never-attempted one.
    const { caseId: never } = await parkCase(db, shop, parkInput("polling"));
    expect(await walk("attempt-writer", "attempt", 1)).toEqual([never, caseId]);
    expect(await walk("attempt-writer", "attempt_recent", 1)).toEqual([caseId, never]);
  });

  it("pages through ties and never-attempted cases either way round, each case once, one order the other's reverse", async () => {
    const name = "attempt-keyset";
    const shop = producer(name);
    const ids: string[] = [];
    for (let i = 0; i < 11; i++) ids.push((await parkCase(db, shop, parkInput("polling"))).caseId);
    // Four never attempted, three tied at one moment, two at another, two at a third.
    const at = [null, null, null, null, "2026-11-01T10:00:00Z", "2026-11-01T10:00:00Z", "2026-11-01T10:00:00Z"];
    at.push("2026-11-02T10:00:00Z", "2026-11-02T10:00:00Z", "2026-10-01T10:00:00Z", "2026-10-01T10:00:00Z");
    for (const [i, id] of ids.entries()) {
      const when = at[i];
      await db.case.update({ where: { id }, data: { lastAttemptAt: when ? new Date(when) : null } });
    }
    const key = (id: string) => at[ids.indexOf(id)] ?? "";
    const expected = [...ids].sort((a, b) => key(a).localeCompare(key(b)) || a.localeCompare(b));
    for (const limit of [1, 2, 3, 4, 50]) {
      const oldest = await walk(name, "attempt", limit);
      expect(oldest, `attempt, ${limit} a page`).toEqual(expected);
      const recent = await walk(name, "attempt_recent", limit);
      expect(recent, `attempt_recent, ${limit} a page`).toEqual([...expected].reverse());
    }
    // Never-attempted cases come first one way and last the other.
    expect(expected.slice(0, 4).every((id) => key(id) === "")).toBe(true);

    // A case's neighbours in either order, never-attempted ones and ties included, are its places in the list.
    const operator = await makeUser(db, ["operator"]);
    for (const sort of ["attempt", "attempt_recent"] as const) {
      const order = sort === "attempt" ? expected : [...expected].reverse();
      for (const [i, id] of order.entries()) {
        const around = await caseNeighbours(db, operator, listCasesSchema.parse({ sort, producer: name }), id);
        expect(around.previous?.id ?? null, `${sort} before ${i}`).toBe(order[i - 1] ?? null);
        expect(around.next?.id ?? null, `${sort} after ${i}`).toBe(order[i + 1] ?? null);
      }
    }
  });

  it("refuses a last-attempt cursor it did not issue with invalid_request", async () => {
    const operator = await makeUser(db, ["operator"]);
    const id = "00000000-0000-4000-8000-000000000000";
    for (const cursor of [cursorOf({ v: "yesterday", id }), cursorOf({ v: "infinity!", id }), cursorOf({ v: "" })]) {
      const refused = await listCases(db, operator, listCasesSchema.parse({ sort: "attempt", cursor })).then(
        () => "no error",
        (error: { code?: string }) => error.code,
      );
      expect(refused).toBe("invalid_request");
    }
  });
});
