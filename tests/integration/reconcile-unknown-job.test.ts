import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { env } from "@/lib/env";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { approveCase } from "@/lib/services/case/approve-case";
import { getCase } from "@/lib/services/case/get-case";
import { listCases } from "@/lib/services/case/list-cases";
import { parkCase } from "@/lib/services/case/park-case";
import { reconcileCase } from "@/lib/services/case/reconcile-case";
import { listCasesSchema } from "@/lib/validation/list-cases";
import { runTick } from "@/lib/worker/run-tick";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { simulatorAndWorker } from "./helpers/worker-context";
import { openTestDb } from "./setup/test-db";

// Decision 068: a job to check whose status check the provider answered "not found" is reconciled:
// a different job is attached (through the ownership rule, rule 17) and checked next, or "no job
// exists" is recorded once the settling period is over, with the hold left to finance (rule 6).
process.env.WORKER_LOG = "0";
const { db } = openTestDb();
const shop = producer("unknown-job-shop");
const otherShop = producer("unknown-job-other-shop");
const live = simulatorAndWorker(db);

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => "ok",
    (error: { code?: string }) => error.code ?? String(error),
  );

/** A job to check whose one status check the provider answered 404. */
async function checkedUnknown(reviewer: Awaited<ReturnType<typeof makeUser>>) {
  const tag = randomUUID().slice(0, 8);
  const unknownJob = `pred-gone-${tag}`;
  const parked = await parkCase(db, shop, parkInput("polling", { model: `gone-${tag}`, providerJobId: unknownJob }));
  // Before any check nothing says the job is unknown: the case is not reconciled.
  const attachEarly = { verdict: "attach", providerJobId: `pred-early-${tag}`, evidence: "a guess" } as const;
  expect(await codeOf(reconcileCase(db, reviewer, parked.caseId, attachEarly))).toBe("illegal_transition");
  await approveCase(db, reviewer, parked.caseId, { action: "resume_poll", evidence: "check the job" });
  await runTick(live.ctx, worker(), { maxTasks: 5 });
  const row = await db.case.findUniqueOrThrow({ where: { id: parked.caseId } });
  expect({ stage: row.stage, state: row.state }).toEqual({ stage: "polling", state: "parked" });
  const answer = await db.providerObservation.findFirstOrThrow({
    where: { caseId: parked.caseId },
    orderBy: { id: "desc" },
  });
  expect(answer.kind).toBe("not_found");
  return { caseId: parked.caseId, attemptRef: row.attemptRef, unknownJob, tag };
}

describe("a job to check the provider does not know", () => {
  it("takes a different job, which is checked next without being held back", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const { caseId, attemptRef, unknownJob } = await checkedUnknown(reviewer);
    const page = await getCase(db, reviewer, caseId, env());
    expect(page).toMatchObject({ jobUnknown: true, lastAttemptApplies: true });
    expect(page.repeatCannotHelp).toContain("does not know this job");
    // The queue's row says the same, not "approve status checks".
    const queue = await listCases(db, reviewer, listCasesSchema.parse({ q: page.operationId }));
    expect(queue.items.find((item) => item.id === caseId)?.waitingOn.why).toBe(page.progress.waitingOn.why);
    expect(page.progress.waitingOn.why).toContain("does not know this job");

    // The very job the provider does not know is not attached again.
    const same = { verdict: "attach", providerJobId: unknownJob, evidence: "same one" } as const;
    expect(await codeOf(reconcileCase(db, reviewer, caseId, same))).toBe("illegal_transition");

    const found = live.sim.state.seedJob({ provider: "replicate", outcome: "succeeded" });
    const result = await reconcileCase(db, reviewer, caseId, {
      verdict: "attach",
      providerJobId: found.id,
      evidence: "the shop's log names the job it really got",
    });
    expect(result).toMatchObject({ stage: "polling", state: "parked" });
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect(row.providerJobId).toBe(found.id);
    expect((await db.attempt.findUniqueOrThrow({ where: { id: attemptRef } })).providerJobId).toBe(found.id);
    const audit = await db.auditEvent.findFirstOrThrow({ where: { caseId, kind: "reconciled_job_found" } });
    expect(audit.evidence).toMatchObject({ providerJobId: found.id, unknownProviderJobId: unknownJob });
    expect(await db.decision.count({ where: { caseId, kind: "reconcile_attach" } })).toBe(1);
    expect((await db.hold.findUniqueOrThrow({ where: { attemptRef } })).status).toBe("held");

    // The 404 was about the old job: the new one is not reconciled again, and its check is offered first.
    const after = await getCase(db, reviewer, caseId, env());
    expect(after).toMatchObject({ repeatCannotHelp: null, lastAttemptApplies: false });
    expect(after).not.toHaveProperty("jobUnknown");
    const again = { verdict: "attach", providerJobId: `pred-third-${randomUUID()}`, evidence: "another" } as const;
    expect(await codeOf(reconcileCase(db, reviewer, caseId, again))).toBe("illegal_transition");
    await approveCase(db, reviewer, caseId, { action: "resume_poll", evidence: "check the new job" });
    await runTick(live.ctx, worker(), { maxTasks: 5 });
    const checked = await db.providerObservation.findFirstOrThrow({
      where: { caseId },
      orderBy: { id: "asc" },
      skip: 1,
    });
    expect(checked.kind).not.toBe("not_found");
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).stage).not.toBe("polling");
    expect(live.sim.state.stats().creates.total).toBe(0);
  });

  it("refuses a job another producer's case owns, and leaves the case and its attempt as they were", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const { caseId, attemptRef, unknownJob, tag } = await checkedUnknown(reviewer);
    const owned = `pred-owned-${tag}`;
    await parkCase(db, otherShop, parkInput("polling", { providerJobId: owned }));
    const attach = { verdict: "attach", providerJobId: owned, evidence: "looks like ours" } as const;
    const refusal = await reconcileCase(db, reviewer, caseId, attach).catch((error: unknown) => error);
    expect(refusal).toMatchObject({ code: "provider_job_in_use" });
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect({ stage: row.stage, state: row.state, providerJobId: row.providerJobId }).toEqual({
      stage: "polling",
      state: "parked",
      providerJobId: unknownJob,
    });
    expect((await db.attempt.findUniqueOrThrow({ where: { id: attemptRef } })).providerJobId).toBe(unknownJob);
    expect(await db.auditEvent.count({ where: { caseId, kind: "reconciled_job_found" } })).toBe(0);
  });

  it("records that no job exists only once the settling period is over; the hold stays for finance", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const { caseId, attemptRef } = await checkedUnknown(reviewer);
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    const noJob = { verdict: "no_job", evidence: "nothing in the provider's list" } as const;
    const early = { now: new Date((row.submittedAt ?? row.openedAt).getTime() + 60_000) };
    expect(await codeOf(reconcileCase(db, reviewer, caseId, noJob, early))).toBe("too_early");
    const page = await getCase(db, reviewer, caseId, env());
    expect(Date.parse(page.noJobFrom ?? "")).toBeGreaterThan(early.now.getTime());

    const holdBefore = await db.hold.findUniqueOrThrow({ where: { attemptRef } });
    await expect(reconcileCase(db, reviewer, caseId, noJob)).resolves.toMatchObject({
      stage: "generation_failed",
      state: "parked",
    });
    const failed = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect(failed.providerJobId).toBeNull();
    expect(failed.heldMicros).toBe(row.heldMicros);
    const hold = await db.hold.findUniqueOrThrow({ where: { attemptRef } });
    expect({ status: hold.status, amountMicros: hold.amountMicros }).toEqual({
      status: holdBefore.status,
      amountMicros: holdBefore.amountMicros,
    });
    expect(hold.status).toBe("held");
    expect(await db.auditEvent.count({ where: { caseId, kind: "reconciled_no_job" } })).toBe(1);

    // Accepting the failure is where the failed generation already allows it; the money waits for finance.
    await acceptFailure(db, reviewer, caseId, { evidence: "no job, nothing to deliver" });
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).state).toBe("resolved");
    expect((await db.hold.findUniqueOrThrow({ where: { attemptRef } })).status).toBe("held");
  });

  it("refuses a person without the reconcile permission", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const operator = await makeUser(db, ["operator"]);
    const { caseId } = await checkedUnknown(reviewer);
    const attach = { verdict: "attach", providerJobId: `pred-op-${randomUUID()}`, evidence: "x" } as const;
    expect(await codeOf(reconcileCase(db, operator, caseId, attach))).toBe("forbidden");
  });
});
