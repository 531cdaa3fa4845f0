import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { FUTILE_REPEAT_WORDS } from "@/lib/domain/futile-repeat";
import { env } from "@/lib/env";
import { approveCase } from "@/lib/services/case/approve-case";
import { dryRunBulk, executeBulk } from "@/lib/services/case/bulk-cases";
import { getCase } from "@/lib/services/case/get-case";
import { parkCase } from "@/lib/services/case/park-case";
import { runTick } from "@/lib/worker/run-tick";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { simulatorAndWorker } from "./helpers/worker-context";
import { openTestDb } from "./setup/test-db";

// Decision 061: a status check the provider answered with "not found" is not repeated by a bulk
// approval; the dry run lists the case as skipped with the reason, and the check is not re-run.
process.env.WORKER_LOG = "0";
const { db } = openTestDb();
const shop = producer("bulk-futile-shop");
const live = simulatorAndWorker(db);

describe("a bulk approval after a status check found the job unknown", () => {
  it("skips the case with its reason at the dry run, and approves the case never checked", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const model = `futile-${randomUUID().slice(0, 8)}`;
    const unknown = await parkCase(db, shop, parkInput("polling", { model, providerJobId: `pred-unknown-${model}` }));
    const fresh = await parkCase(db, shop, parkInput("polling", { model, providerJobId: `pred-fresh-${model}` }));
    await approveCase(db, reviewer, unknown.caseId, { action: "resume_poll", evidence: "check the job" });
    await runTick(live.ctx, worker(), { maxTasks: 5 });
    const after = await db.case.findUniqueOrThrow({ where: { id: unknown.caseId } });
    expect({ stage: after.stage, state: after.state }).toEqual({ stage: "polling", state: "parked" });
    const checks = await db.providerObservation.count({ where: { caseId: unknown.caseId } });
    expect(
      (await db.providerObservation.findFirstOrThrow({ where: { caseId: unknown.caseId }, orderBy: { id: "desc" } }))
        .kind,
    ).toBe("not_found");

    // The case page says the same: the repeat is the one step that cannot help.
    const detail = await getCase(db, reviewer, unknown.caseId, env());
    expect(detail.progress.lastAttempt).toMatchObject({ failed: true, answer: "not_found" });

    const target = { kind: "filter", filter: { model } } as const;
    const action = { verb: "approve", evidence: "the provider is back" } as const;
    const preview = await dryRunBulk(db, reviewer, { mode: "dry_run", action, target });
    expect(preview.cases.map((c) => c.caseId)).toEqual([fresh.caseId]);
    expect(preview.skipped).toEqual([
      expect.objectContaining({
        caseId: unknown.caseId,
        code: "repeat_cannot_help",
        message: FUTILE_REPEAT_WORDS.job_unknown,
        at: "dry_run",
      }),
    ]);
    const result = await executeBulk(db, reviewer, { mode: "execute", action, target, token: preview.token });
    expect(result).toMatchObject({ applied: 1, appliedCaseIds: [fresh.caseId] });
    expect(result.skipped.map((s) => s.code)).toEqual(["repeat_cannot_help"]);
    // Nothing was asked of the provider again, and the skipped case is as the check left it.
    expect(await db.providerObservation.count({ where: { caseId: unknown.caseId } })).toBe(checks);
    expect((await db.case.findUniqueOrThrow({ where: { id: unknown.caseId } })).state).toBe("parked");
    expect(live.sim.state.stats().creates.total).toBe(0);
  });
});
