import { describe, expect, it, vi } from "vitest";
import { hashToken } from "@/lib/auth/token-secret";
import { approveCase } from "@/lib/services/case/approve-case";
import { assignCase } from "@/lib/services/case/assign-case";
import { parkCase } from "@/lib/services/case/park-case";
import { makeUser, parkInput, producer } from "./fixtures";
import { previewApproval } from "./helpers/bulk-approval";
import { openTestDb } from "./setup/test-db";

// A bulk action's approvals write many cases per statement; each case must still end exactly as one
// approval through approveCase leaves it, and a case that changed meanwhile must be left alone.
const { db } = openTestDb();
const shop = producer("bulk-statements-shop");

async function parked(model: string, count: number) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await parkCase(db, shop, parkInput("polling", { model }))).caseId);
  return ids;
}

/** The text of a raw query, whether sent as a tagged template or as `Prisma.sql`. */
const textOf = (query: unknown) =>
  Array.isArray(query) ? query.join("?") : String((query as { sql?: string } | undefined)?.sql ?? "");
const writesApprovals = (args: unknown[]) => textOf(args[0]).includes("INSERT INTO decisions");

/**
 * A case's approval as rows, with what differs between two cases named alike; a bulk approval's
 * event must name the bulk action it was part of (`previewId`), and is otherwise compared as is.
 */
async function approvalOf(caseId: string, previewId?: string) {
  const kase = await db.case.findUniqueOrThrow({ where: { id: caseId } });
  const approved = await db.auditEvent.findFirstOrThrow({ where: { caseId, kind: "approved" } });
  const { bulkPreviewId, ...evidence } = approved.evidence as Record<string, unknown>;
  expect(bulkPreviewId).toBe(previewId);
  const event = { ...approved, evidence };
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
  it("leaves each case exactly as a single approval does, the cases written by one statement", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const [single] = await parked("single-model", 1);
    const bulk = await parked("set-model", 3);
    await approveCase(db, reviewer, single as string, { action: "resume_poll", evidence: "provider recovered" });
    const { preview, execute } = await previewApproval(db, reviewer, {
      evidence: "provider recovered",
      target: { kind: "filter", filter: { model: "set-model" } },
    });
    expect(preview).toMatchObject({ willAct: 3, skipped: [] });
    const transactions = vi.spyOn(db, "$transaction");
    const statements = vi.spyOn(db, "$queryRaw");
    const result = await execute();
    expect(result).toMatchObject({ verb: "approve", applied: 3, skipped: [] });
    // No case took the single-case path (a transaction of its own): one statement approved all three.
    expect(transactions).not.toHaveBeenCalled();
    expect(statements.mock.calls.filter(writesApprovals)).toHaveLength(1);
    transactions.mockRestore();
    statements.mockRestore();
    const { id: previewId } = await db.bulkPreview.findUniqueOrThrow({
      where: { tokenHash: hashToken(preview.token) },
    });
    const expected = await approvalOf(single as string);
    for (const id of bulk) expect(await approvalOf(id, previewId)).toEqual(expected);
  });

  it("takes 500 cases to a statement: 501 cases are two statements, still no case on its own", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const ids = (await Promise.all(Array.from({ length: 3 }, () => parked("chunk-model", 167)))).flat();
    const { preview, execute } = await previewApproval(
      db,
      reviewer,
      { evidence: "provider recovered", target: { kind: "filter", filter: { model: "chunk-model" } } },
      ids.length,
    );
    expect(preview.willAct).toBe(501);
    const transactions = vi.spyOn(db, "$transaction");
    const statements = vi.spyOn(db, "$queryRaw");
    const result = await execute();
    expect(result).toMatchObject({ applied: 501, skipped: [] });
    expect(transactions).not.toHaveBeenCalled();
    expect(statements.mock.calls.filter(writesApprovals)).toHaveLength(2);
    transactions.mockRestore();
    statements.mockRestore();
  });

  it("a case changed after the statement read it is left alone and reported, never re-decided unseen", async () => {
    const reviewer = await makeUser(db, ["reviewer", "operator"]);
    const [first, changed] = await parked("moving-model", 2);
    const { execute } = await previewApproval(db, reviewer, {
      evidence: "go",
      target: { kind: "ids", caseIds: [first as string, changed as string] },
    });
    // The execution reads the previewed cases for its statement; one changes right after that read.
    const queryRaw = db.$queryRaw.bind(db);
    let read = false;
    const spy = vi.spyOn(db, "$queryRaw").mockImplementation((async (...args: never[]) => {
      const rows = await queryRaw(...(args as [never]));
      if (!read && textOf(args[0]).includes("FROM cases WHERE id = ANY")) {
        read = true;
        await assignCase(db, reviewer, changed as string, { assigneeId: reviewer.userId });
      }
      return rows;
    }) as never);
    const result = await execute();
    spy.mockRestore();
    expect(read).toBe(true);
    expect(result).toMatchObject({ applied: 1, appliedCaseIds: [first] });
    expect(result.skipped).toEqual([
      expect.objectContaining({ caseId: changed, code: "changed_since_preview", at: "execute" }),
    ]);
    expect(await db.case.findUniqueOrThrow({ where: { id: changed } })).toMatchObject({ state: "parked", version: 2 });
    expect(await db.decision.count({ where: { caseId: changed } })).toBe(0);
    expect(await db.recoveryAction.count({ where: { caseId: changed } })).toBe(0);
    expect(await db.auditEvent.count({ where: { caseId: changed, kind: "approved" } })).toBe(0);
  });

  it("two bulk approvals of the same cases at once give each case one decision and one action", async () => {
    const [a, b] = [await makeUser(db, ["reviewer"]), await makeUser(db, ["reviewer"])];
    const ids = await parked("race-model", 40);
    const input = { evidence: "both at once", target: { kind: "filter", filter: { model: "race-model" } } } as const;
    // Both dry runs see all 40 cases parked, so both executions go for every one of them.
    const runs = [await previewApproval(db, a, input), await previewApproval(db, b, input)];
    for (const { preview } of runs) expect(preview.willAct).toBe(ids.length);
    const [first, second] = await Promise.all(runs.map((run) => run.execute()));
    if (!first || !second) throw new Error("no results");
    // Each case went to exactly one of them; the other reports it as changed since its dry run.
    expect([...first.appliedCaseIds, ...second.appliedCaseIds].sort()).toEqual([...ids].sort());
    for (const { skipped } of [first, second])
      expect(skipped.every((s) => s.code === "changed_since_preview" && s.at === "execute")).toBe(true);
    expect(first.skipped.length + second.skipped.length).toBe(ids.length);
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
