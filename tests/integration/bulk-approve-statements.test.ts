import { describe, expect, it, vi } from "vitest";
import { approveCase } from "@/lib/services/case/approve-case";
import { assignCase } from "@/lib/services/case/assign-case";
import { bulkApproveCases } from "@/lib/services/case/bulk-approve-cases";
import { parkCase } from "@/lib/services/case/park-case";
import { makeUser, parkInput, producer } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// Bulk approval writes many cases per statement; each case must still end exactly as one approval
// through approveCase leaves it, and a case that changed meanwhile must go through approveCase.
const { db } = openTestDb();
const shop = producer("bulk-statements-shop");

async function parked(model: string, count: number) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await parkCase(db, shop, parkInput("polling", { model }))).caseId);
  return ids;
}

/** A case's approval as rows, with what differs between two cases named alike. */
async function approvalOf(caseId: string) {
  const kase = await db.case.findUniqueOrThrow({ where: { id: caseId } });
  const event = await db.auditEvent.findFirstOrThrow({ where: { caseId, kind: "approved" } });
  const decision = await db.decision.findFirstOrThrow({ where: { caseId } });
  const action = await db.recoveryAction.findFirstOrThrow({ where: { caseId } });
  const text = JSON.stringify(
    {
      case: { stage: kase.stage, state: kase.state, version: kase.version },
      // Hashes and digests cover the ids replaced below; the texts themselves are compared instead.
      event: {
        ...event,
        id: 0,
        createdAt: 0,
        prevHash: 0,
        hash: 0,
        beforeDigest: 0,
        afterDigest: 0,
        evidenceDigest: 0,
      },
      decision: { ...decision, id: 0, createdAt: 0 },
      action: { ...action, id: 0, decisionId: action.decisionId === decision.id, createdAt: 0, readyAt: 0 },
    },
    (_, value) => (typeof value === "bigint" ? Number(value) : value),
  );
  return JSON.parse(
    text
      .replaceAll(caseId, "CASE")
      .replaceAll(kase.providerJobId ?? "-", "JOB")
      .replaceAll(kase.openedAt.toISOString(), "OPENED"),
  );
}

describe("bulk approval, many cases to a statement", () => {
  it("leaves each case exactly as a single approval does", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const [single] = await parked("single-model", 1);
    const bulk = await parked("set-model", 3);
    await approveCase(db, reviewer, single as string, { action: "resume_poll", evidence: "provider recovered" });
    const statements = vi.spyOn(db, "$transaction");
    const result = await bulkApproveCases(db, reviewer, {
      stage: "polling",
      evidence: "provider recovered",
      target: { kind: "filter", filter: { model: "set-model" } },
    });
    expect(result).toEqual({ action: "resume_poll", approved: 3, skipped: [] });
    expect(statements).not.toHaveBeenCalled();
    statements.mockRestore();
    const expected = await approvalOf(single as string);
    for (const id of bulk) expect(await approvalOf(id)).toEqual(expected);
  });

  it("a case changed after it was chosen is approved through the single-case service, from fresh rows", async () => {
    const reviewer = await makeUser(db, ["reviewer", "operator"]);
    const [first, changed] = await parked("moving-model", 2);
    // The first statement bulk sends reads its targets; the case changes right after that read.
    const queryRaw = db.$queryRaw.bind(db);
    const spy = vi.spyOn(db, "$queryRaw").mockImplementationOnce((async (...args: never[]) => {
      const rows = await queryRaw(...(args as [never]));
      await assignCase(db, reviewer, changed as string, { assigneeId: reviewer.userId });
      return rows;
    }) as never);
    const result = await bulkApproveCases(db, reviewer, {
      stage: "polling",
      evidence: "go",
      target: { kind: "ids", caseIds: [first as string, changed as string] },
    });
    spy.mockRestore();
    expect(result).toMatchObject({ approved: 2, skipped: [] });
    const event = await db.auditEvent.findFirstOrThrow({ where: { caseId: changed, kind: "approved" } });
    expect(event.before).toMatchObject({ state: "parked", version: 2 });
    expect(event.after).toMatchObject({ state: "ready", version: 3 });
  });

  it("two bulk approvals of the same cases at once give each case one decision and one action", async () => {
    const [a, b] = [await makeUser(db, ["reviewer"]), await makeUser(db, ["reviewer"])];
    const ids = await parked("race-model", 40);
    const input = {
      stage: "polling",
      evidence: "both at once",
      target: { kind: "filter", filter: { model: "race-model" } },
    } as const;
    const [first, second] = await Promise.all([bulkApproveCases(db, a, input), bulkApproveCases(db, b, input)]);
    expect(first.skipped).toEqual([]);
    expect(second.skipped).toEqual([]);
    const decisions = await db.decision.groupBy({ by: ["caseId"], where: { caseId: { in: ids } }, _count: true });
    const actions = await db.recoveryAction.groupBy({ by: ["caseId"], where: { caseId: { in: ids } }, _count: true });
    const events = await db.auditEvent.groupBy({
      by: ["caseId"],
      where: { caseId: { in: ids }, kind: "approved" },
      _count: true,
    });
    for (const rows of [decisions, actions, events]) {
      expect(rows).toHaveLength(ids.length);
      expect(rows.every((row) => row._count === 1)).toBe(true);
    }
  });
});
