import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import * as bulkRoute from "@/app/api/v1/cases/bulk/route";
import type { BulkAction } from "@/lib/domain/bulk-verbs";
import type { Role } from "@/lib/domain/roles";
import type { Stage } from "@/lib/domain/stages";
import type { UserActor } from "@/lib/services/access/actor";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { approveCase } from "@/lib/services/case/approve-case";
import { assignCase } from "@/lib/services/case/assign-case";
import { dryRunBulk, executeBulk } from "@/lib/services/case/bulk-cases";
import { parkCase } from "@/lib/services/case/park-case";
import type { BulkTarget } from "@/lib/validation/bulk";
import { makeUser, parkInput, producer } from "./fixtures";
import { callRoute } from "./helpers/call-route";
import { tableCounts } from "./helpers/table-counts";
import { openTestDb } from "./setup/test-db";

const { db } = openTestDb();
const shop = producer("bulk-verbs-shop");
const otherShop = producer("bulk-verbs-other");

let reviewer: UserActor;
let operator: UserActor;
let finance: UserActor;
let admin: UserActor;

beforeAll(async () => {
  reviewer = await makeUser(db, ["reviewer"]);
  operator = await makeUser(db, ["operator"]);
  finance = await makeUser(db, ["finance"]);
  admin = await makeUser(db, ["admin"]);
});

/** Parks cases of the given stages under a model of their own, so a filter selects exactly them. */
async function parkSet(stages: Stage[], owner = shop, model = `bulk-${randomUUID().slice(0, 8)}`) {
  const ids: string[] = [];
  for (const stage of stages) ids.push(String((await parkCase(db, owner, parkInput(stage, { model }))).caseId));
  return { model, ids, target: { kind: "filter", filter: { model } } as BulkTarget };
}

async function run(actor: UserActor, action: BulkAction, target: BulkTarget, limit?: number) {
  const preview = await dryRunBulk(db, actor, { mode: "dry_run", action, target }, limit);
  const result = await executeBulk(db, actor, { mode: "execute", action, target, token: preview.token });
  return { preview, result };
}

const auditOf = (caseId: string, kind: string) => db.auditEvent.findMany({ where: { caseId, kind } });

describe("bulk verbs: each case gets its own decision and audit row", () => {
  it.each([
    ["reject", "rejected", "reject"],
    ["escalate", "escalated", "escalate"],
  ] as const)("%s keeps the cases parked with a decision and an audit row each", async (verb, auditKind, decision) => {
    const { ids, target } = await parkSet(["polling", "delivery", "submission_uncertain"]);
    const { preview, result } = await run(reviewer, { verb, evidence: "the provider is still down" }, target);
    expect(preview).toMatchObject({ matching: 3, willAct: 3, skipped: [] });
    expect(preview.heldByCurrency).toEqual([{ currency: "USD", micros: 300_000 }]);
    expect(result).toMatchObject({ verb, applied: 3, skipped: [] });
    for (const id of ids) {
      const events = await auditOf(id, auditKind);
      expect(events).toHaveLength(1);
      expect(events[0]?.evidence).toMatchObject({
        text: "the provider is still down",
        bulkPreviewId: expect.any(String),
      });
      expect(await db.decision.count({ where: { caseId: id, kind: decision, reviewerId: reviewer.userId } })).toBe(1);
      expect((await db.case.findUniqueOrThrow({ where: { id } })).state).toBe("parked");
    }
  });

  it("approve gives each case its stage's own recovery, and skips stages that have none", async () => {
    const { ids, target } = await parkSet(["polling", "delivery", "submission_uncertain", "generation_failed"]);
    const { preview, result } = await run(reviewer, { verb: "approve", evidence: "provider recovered" }, target);
    expect(preview.willAct).toBe(2);
    expect(preview.skipped.map((s) => s.code).sort()).toEqual([
      "action_not_permitted_for_stage",
      "reconciliation_required",
    ]);
    expect(result.applied).toBe(2);
    const actions = await db.recoveryAction.findMany({ where: { caseId: { in: ids } }, orderBy: { kind: "asc" } });
    expect(actions.map((a) => a.kind)).toEqual(["resume_poll", "retry_delivery"]);
    expect(new Set(actions.map((a) => a.decisionId)).size).toBe(2);
    for (const id of ids.slice(0, 2)) {
      const [event] = await auditOf(id, "approved");
      expect(event?.evidence).toMatchObject({ text: "provider recovered", bulkPreviewId: expect.any(String) });
    }
  });

  it("approve leaves a case that changed after the dry run alone, and approves the rest in one go", async () => {
    const { ids, target } = await parkSet(["polling", "polling", "delivery"]);
    const request = await tokenFor(reviewer, { verb: "approve", evidence: "provider recovered" }, target);
    await assignCase(db, operator, ids[1] ?? "", { assigneeId: reviewer.userId });
    const result = await executeBulk(db, reviewer, { mode: "execute", ...request });
    expect(result.appliedCaseIds.sort()).toEqual([ids[0], ids[2]].sort());
    expect(result.skipped).toEqual([
      expect.objectContaining({ caseId: ids[1], code: "changed_since_preview", at: "execute" }),
    ]);
    expect(await db.recoveryAction.count({ where: { caseId: ids[1] } })).toBe(0);
    expect((await db.case.findUniqueOrThrow({ where: { id: ids[1] } })).state).toBe("parked");
  });

  it("accept failure closes proven failures only, the hold left for finance", async () => {
    const { ids, target } = await parkSet(["generation_failed", "generation_failed", "polling"]);
    const { preview, result } = await run(reviewer, { verb: "accept_failure", evidence: "content policy" }, target);
    expect(preview).toMatchObject({ willAct: 2, heldByCurrency: [{ currency: "USD", micros: 200_000 }] });
    expect(preview.skipped).toEqual([
      expect.objectContaining({ caseId: ids[2], code: "action_not_permitted_for_stage", at: "dry_run" }),
    ]);
    expect(result.applied).toBe(2);
    expect(result.skipped).toHaveLength(1);
    for (const id of ids.slice(0, 2)) {
      expect(await db.case.findUniqueOrThrow({ where: { id } })).toMatchObject({
        state: "resolved",
        outcome: "failure_accepted",
      });
      expect(await db.hold.findFirstOrThrow({ where: { caseId: id } })).toMatchObject({ status: "held" });
      expect(await auditOf(id, "failure_accepted")).toHaveLength(1);
    }
    expect((await db.case.findUniqueOrThrow({ where: { id: ids[2] } })).state).toBe("parked");
  });

  it("assign gives each open case to an active reviewer, skipping those already theirs and resolved ones", async () => {
    const { ids, target } = await parkSet(["polling", "delivery", "generation_failed"]);
    const assignee = await makeUser(db, ["reviewer"]);
    await db.case.update({ where: { id: ids[1] }, data: { assigneeId: assignee.userId } });
    await executeBulk(db, reviewer, {
      mode: "execute",
      ...(await tokenFor(
        reviewer,
        { verb: "accept_failure", evidence: "failed for good" },
        {
          kind: "ids",
          caseIds: [ids[2] ?? ""],
        },
      )),
    });
    const { preview, result } = await run(
      operator,
      { verb: "assign", assigneeId: assignee.userId },
      {
        kind: "ids",
        caseIds: ids,
      },
    );
    expect(preview.skipped.map((s) => [s.caseId, s.code])).toEqual([
      [ids[1], "already_assigned"],
      [ids[2], "illegal_transition"],
    ]);
    expect(result.applied).toBe(1);
    expect(await db.case.findUniqueOrThrow({ where: { id: ids[0] } })).toMatchObject({ assigneeId: assignee.userId });
    expect(await auditOf(ids[0] ?? "", "assigned")).toHaveLength(1);
    // Only an active reviewer can be given cases: refused before anything is kept.
    await expect(
      dryRunBulk(db, operator, { mode: "dry_run", action: { verb: "assign", assigneeId: operator.userId }, target }),
    ).rejects.toMatchObject({ code: "invalid_request" });
  });

  it("note writes one note per case, on open and resolved cases alike, without a new version", async () => {
    const { ids, target } = await parkSet(["polling", "submission_uncertain"]);
    const before = await db.case.findMany({ where: { id: { in: ids } }, orderBy: { id: "asc" } });
    const { result } = await run(finance, { verb: "note", text: "invoice 2026-11 checked" }, target);
    expect(result.applied).toBe(2);
    for (const id of ids) expect(await auditOf(id, "note_added")).toHaveLength(1);
    const after = await db.case.findMany({ where: { id: { in: ids } }, orderBy: { id: "asc" } });
    expect(after.map((c) => c.version)).toEqual(before.map((c) => c.version));
  });

  it("is capped: the oldest cases up to the limit, and how many more matched", async () => {
    const { ids, target } = await parkSet(["polling", "polling", "polling"]);
    const { preview, result } = await run(reviewer, { verb: "escalate", evidence: "needs a lead" }, target, 2);
    expect(preview).toMatchObject({ matching: 3, willAct: 2, beyondLimit: 1 });
    expect(preview.cases.map((c) => c.caseId)).toEqual(ids.slice(0, 2));
    expect(result.applied).toBe(2);
    expect(await auditOf(ids[2] ?? "", "escalated")).toHaveLength(0);
  });
});

/** A dry run's token and the request it answered. */
async function tokenFor(actor: UserActor, action: BulkAction, target: BulkTarget) {
  const preview = await dryRunBulk(db, actor, { mode: "dry_run", action, target });
  return { action, target, token: preview.token };
}

describe("the dry run's token is required, bound and spent once", () => {
  it("executes exactly the preview: a case changed since is skipped, a case that came to match is not touched", async () => {
    // Two producers' cases under one filter (one provider account, one model).
    const { model, ids } = await parkSet(["polling", "polling"]);
    const other = (await parkCase(db, otherShop, parkInput("polling", { model }))).caseId;
    const target: BulkTarget = { kind: "filter", filter: { model } };
    const request = await tokenFor(reviewer, { verb: "reject", evidence: "not now" }, target);
    // Between the dry run and the execution: one case approved by someone else, one new case parked.
    await approveCase(db, await makeUser(db, ["reviewer"]), ids[0] ?? "", {
      action: "resume_poll",
      evidence: "mine",
    });
    const late = String((await parkCase(db, otherShop, parkInput("polling", { model }))).caseId);
    const result = await executeBulk(db, reviewer, { mode: "execute", ...request });
    expect(result.applied).toBe(2);
    expect(result.appliedCaseIds.sort()).toEqual([ids[1], other].sort());
    expect(result.skipped).toEqual([
      expect.objectContaining({ caseId: ids[0], code: "changed_since_preview", at: "execute" }),
    ]);
    expect(await auditOf(ids[0] ?? "", "rejected")).toHaveLength(0);
    expect(await auditOf(late, "rejected")).toHaveLength(0);
    expect(await auditOf(String(other), "rejected")).toHaveLength(1);
  });

  it("a case that came back as a new episode after the dry run is not decided on the old episode's preview", async () => {
    const model = `bulk-${randomUUID().slice(0, 8)}`;
    const first = parkInput("generation_failed", { model });
    const caseId = String((await parkCase(db, shop, first)).caseId);
    const target: BulkTarget = { kind: "filter", filter: { model } };
    const request = await tokenFor(reviewer, { verb: "accept_failure", evidence: "failed for good" }, target);
    // Meanwhile the failure is accepted and the shop sends the operation again: episode 2, failed too.
    await acceptFailure(db, await makeUser(db, ["reviewer"]), caseId, { evidence: "closed by hand" });
    await parkCase(
      db,
      shop,
      parkInput("generation_failed", {
        model,
        operationId: first.operationId,
        attemptId: `${first.attemptId}-again`,
        requestFingerprint: first.requestFingerprint,
        hold: { holdId: `${first.hold.holdId}-2`, amountMicros: 100_000, currency: "USD" },
      }),
    );
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).episode).toBe(2);
    const result = await executeBulk(db, reviewer, { mode: "execute", ...request });
    expect(result.applied).toBe(0);
    expect(result.skipped).toEqual([expect.objectContaining({ caseId, code: "changed_since_preview", at: "execute" })]);
    expect(await db.decision.count({ where: { caseId, episode: 2 } })).toBe(0);
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).state).toBe("parked");
  });

  it("refuses an unknown token, another user's token, a different request, a second use and an expired one", async () => {
    const { ids, target } = await parkSet(["polling"]);
    const action: BulkAction = { verb: "escalate", evidence: "needs a lead" };
    const request = await tokenFor(reviewer, action, target);
    const execute = (actor: UserActor, overrides: Partial<typeof request>) =>
      executeBulk(db, actor, { mode: "execute", ...request, ...overrides });
    const stranger = await makeUser(db, ["reviewer"]);
    const counts = await tableCounts(db);

    await expect(execute(reviewer, { token: `vrb_${"x".repeat(43)}` })).rejects.toMatchObject({
      code: "bulk_preview_invalid",
    });
    await expect(execute(stranger, {})).rejects.toMatchObject({
      code: "bulk_preview_invalid",
    });
    await expect(execute(reviewer, { action: { verb: "escalate", evidence: "other words" } })).rejects.toMatchObject({
      code: "bulk_preview_mismatch",
    });
    await expect(execute(reviewer, { action: { verb: "reject", evidence: "needs a lead" } })).rejects.toMatchObject({
      code: "bulk_preview_mismatch",
    });
    await expect(execute(reviewer, { target: { kind: "ids", caseIds: ids } })).rejects.toMatchObject({
      code: "bulk_preview_mismatch",
    });
    expect(await tableCounts(db)).toEqual(counts);
    expect(await auditOf(ids[0] ?? "", "escalated")).toHaveLength(0);

    expect((await execute(reviewer, {})).applied).toBe(1);
    await expect(execute(reviewer, {})).rejects.toMatchObject({ code: "bulk_preview_expired" });
    expect(await auditOf(ids[0] ?? "", "escalated")).toHaveLength(1);

    const stale = await tokenFor(reviewer, action, target);
    await db.bulkPreview.updateMany({ where: { usedAt: null }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expect(executeBulk(db, reviewer, { mode: "execute", ...stale })).rejects.toMatchObject({
      code: "bulk_preview_expired",
    });
    // Only the token's hash is kept.
    expect(await db.bulkPreview.count({ where: { tokenHash: stale.token } })).toBe(0);
  });
});

describe("one token, one execution", () => {
  it("two executions of one dry run at once: one acts, the other is refused, each case decided once", async () => {
    const { ids, target } = await parkSet(["generation_failed", "generation_failed"]);
    const request = await tokenFor(reviewer, { verb: "accept_failure", evidence: "content policy" }, target);
    const both = await Promise.allSettled([
      executeBulk(db, reviewer, { mode: "execute", ...request }),
      executeBulk(db, reviewer, { mode: "execute", ...request }),
    ]);
    expect(both.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(both.find((r) => r.status === "rejected")).toMatchObject({ reason: { code: "bulk_preview_expired" } });
    for (const id of ids) {
      expect(await auditOf(id, "failure_accepted")).toHaveLength(1);
      expect(await db.decision.count({ where: { caseId: id, kind: "accept_failure" } })).toBe(1);
    }
  });
});

describe("each verb needs its own permission", () => {
  const refusals: [string, Role, BulkAction][] = [
    ["an operator cannot reject", "operator", { verb: "reject", evidence: "x" }],
    ["an operator cannot escalate", "operator", { verb: "escalate", evidence: "x" }],
    ["an operator cannot approve", "operator", { verb: "approve", evidence: "x" }],
    ["an operator cannot accept failures", "operator", { verb: "accept_failure", evidence: "x" }],
    ["finance cannot assign", "finance", { verb: "assign", assigneeId: null }],
    ["an admin cannot add notes", "admin", { verb: "note", text: "x" }],
  ];
  it.each(refusals)("%s (dry run and execution; nothing kept)", async (_name, role, action) => {
    const actor = { operator, finance, admin, reviewer }[role as "operator" | "finance" | "admin"];
    const { target } = await parkSet(["generation_failed"]);
    const counts = await tableCounts(db);
    await expect(dryRunBulk(db, actor, { mode: "dry_run", action, target })).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(
      executeBulk(db, actor, { mode: "execute", action, target, token: `vrb_${"y".repeat(43)}` }),
    ).rejects.toMatchObject({ code: "forbidden" });
    expect(await tableCounts(db)).toEqual(counts);
  });

  it("a producer's API key cannot act in bulk, even on its own cases", async () => {
    const { target } = await parkSet(["polling"]);
    await expect(
      dryRunBulk(db, shop, { mode: "dry_run", action: { verb: "note", text: "x" }, target }),
    ).rejects.toMatchObject({ code: "forbidden" });
  });
});

describe("POST /api/v1/cases/bulk", () => {
  it("dry run, then execute with the token; without it the execution is refused", async () => {
    const { ids, model } = await parkSet(["delivery", "submission_uncertain"]);
    const token = (await createAccessToken(db, reviewer, { kind: "personal", name: "bulk" })).secret;
    const action = { verb: "approve", evidence: "storage is back" };
    const target = { kind: "filter", filter: { model, stage: "delivery" } };
    const dry = await callRoute(bulkRoute.POST, { token, body: { mode: "dry_run", action, target } });
    expect(dry.status).toBe(200);
    expect(dry.json).toMatchObject({ verb: "approve", matching: 1, willAct: 1, skipped: [] });
    expect(dry.json.cases).toEqual([expect.objectContaining({ caseId: ids[0], stage: "delivery", currency: "USD" })]);

    const missing = await callRoute(bulkRoute.POST, { token, body: { mode: "execute", action, target } });
    expect(missing.status).toBe(400);
    expect(missing.json.error?.code).toBe("invalid_request");
    const forged = await callRoute(bulkRoute.POST, {
      token,
      body: { mode: "execute", action, target, token: `vrb_${"z".repeat(43)}` },
    });
    expect(forged.status).toBe(400);
    expect(forged.json.error?.code).toBe("bulk_preview_invalid");

    const done = await callRoute(bulkRoute.POST, {
      token,
      body: { mode: "execute", action, target, token: dry.json.token },
    });
    expect(done.status).toBe(200);
    expect(done.json).toMatchObject({ verb: "approve", applied: 1, skipped: [] });
    const again = await callRoute(bulkRoute.POST, {
      token,
      body: { mode: "execute", action, target, token: dry.json.token },
    });
    expect(again.status).toBe(409);
    expect(again.json.error?.code).toBe("bulk_preview_expired");
    expect((await db.case.findUniqueOrThrow({ where: { id: ids[0] } })).state).toBe("ready");
  });

  it("refuses a verb the token's user may not use, and a producer key", async () => {
    const { target } = await parkSet(["polling"]);
    const operatorToken = (await createAccessToken(db, operator, { kind: "personal", name: "bulk" })).secret;
    const body = { mode: "dry_run", action: { verb: "reject", evidence: "x" }, target };
    const refused = await callRoute(bulkRoute.POST, { token: operatorToken, body });
    expect(refused.status).toBe(403);
    const allowed = await callRoute(bulkRoute.POST, {
      token: operatorToken,
      body: { ...body, action: { verb: "note", text: "seen" } },
    });
    expect(allowed.status).toBe(200);
    const key = (await createAccessToken(db, "cli", { kind: "api_key", name: "bulk-verbs-shop" })).secret;
    expect((await callRoute(bulkRoute.POST, { token: key, body })).status).toBe(403);
  });
});

describe("while assignment means ownership", () => {
  it("a deciding verb skips cases someone else owns, at the dry run and at the execution; notes stay open", async () => {
    const owner = await makeUser(db, ["reviewer"]);
    const { ids, target } = await parkSet(["polling", "polling", "delivery"]);
    await db.case.update({ where: { id: ids[0] }, data: { assigneeId: owner.userId } });
    await db.consoleSetting.update({ where: { id: true }, data: { assignmentIsOwnership: true } });
    try {
      const { preview, result } = await run(reviewer, { verb: "reject", evidence: "not now" }, target);
      expect(preview.skipped).toEqual([
        expect.objectContaining({ caseId: ids[0], code: "assigned_to_someone_else", at: "dry_run" }),
      ]);
      expect(result.applied).toBe(2);
      expect(await auditOf(ids[0] ?? "", "rejected")).toHaveLength(0);

      // Assigned after the dry run: the batched approval leaves it, and the single-case path says why.
      const request = await tokenFor(reviewer, { verb: "approve", evidence: "provider recovered" }, target);
      await db.case.update({ where: { id: ids[1] }, data: { assigneeId: owner.userId } });
      const approved = await executeBulk(db, reviewer, { mode: "execute", ...request });
      expect(approved.appliedCaseIds).toEqual([ids[2]]);
      expect(approved.skipped).toContainEqual(
        expect.objectContaining({ caseId: ids[1], code: "assigned_to_someone_else", at: "execute" }),
      );
      expect(await db.recoveryAction.count({ where: { caseId: { in: [ids[0] ?? "", ids[1] ?? ""] } } })).toBe(0);

      const noted = await run(operator, { verb: "note", text: "customer called" }, target);
      expect(noted.result.applied).toBe(3);
    } finally {
      await db.consoleSetting.update({ where: { id: true }, data: { assignmentIsOwnership: false } });
    }
  });
});
