import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ActionBound } from "@/lib/domain/action-bound";
import { describeEvent } from "@/lib/domain/timeline-words";
import { byProvider } from "@/lib/providers";
import { approveCase } from "@/lib/services/case/approve-case";
import { parkCase } from "@/lib/services/case/park-case";
import { runTick } from "@/lib/worker/run-tick";
import type { WorkerContext } from "@/lib/worker/worker-context";
import { type RunningSimulator, startSimulator } from "@/verification/simulator";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { testWorkerContext } from "./helpers/worker-context";
import { openTestDb } from "./setup/test-db";

process.env.WORKER_LOG = "0";
const { db } = openTestDb();
const shop = producer("bounded-shop");
let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, timings: { queuedMs: 0, runningMs: 0, outputBytes: 16 * 1024 } });
});
afterAll(() => sim.stop());

/** No wait between checks, so each tick makes the next one; only the bound can stop them. */
const contextWith = (bound: ActionBound, overrides: Partial<WorkerContext> = {}) =>
  testWorkerContext(db, sim.url, { pollBaseSeconds: 0, actionBounds: byProvider(() => bound), ...overrides });

/** A job that never finishes (the simulator's `stuck` outcome), with its status check approved. */
async function approvedNeverFinishing() {
  const job = sim.state.seedJob({ provider: "replicate", outcome: "stuck" });
  const reviewer = await makeUser(db, ["reviewer"]);
  const { caseId } = await parkCase(
    db,
    shop,
    parkInput("polling", { provider: job.provider, model: job.model, providerJobId: job.id }),
  );
  const { actionId } = await approveCase(db, reviewer, caseId, { action: "resume_poll", evidence: "check it" });
  return { caseId, actionId, jobId: job.id, reviewer };
}

async function tickFor(ctx: WorkerContext, caseId: string) {
  const { results } = await runTick(ctx, worker(), { maxTasks: 10 });
  return results.find((r) => r.caseId === caseId)?.outcome;
}

const statusReads = (jobId: string) =>
  sim.state.stats().requests.filter((r) => r.method === "GET" && r.path.endsWith(`/predictions/${jobId}`)).length;

async function stopEvent(caseId: string) {
  const events = await db.auditEvent.findMany({
    where: { caseId, kind: "recovery_unresolved" },
    orderBy: { id: "asc" },
  });
  expect(events).toHaveLength(1);
  const event = events[0];
  if (!event) throw new Error("no stop event");
  return { event, evidence: event.evidence as Record<string, unknown> & { checks: Record<string, unknown>[] } };
}

describe("bounded status checks (DESIGN rule 19)", () => {
  it("checks a never-finishing job until its attempts are used up, then parks it with every check as evidence", async () => {
    const ctx = await contextWith({ maxAttempts: 3, maxSeconds: 24 * 3600 });
    const { caseId, actionId, jobId, reviewer } = await approvedNeverFinishing();

    expect(await tickFor(ctx, caseId)).toBe("rescheduled");
    expect(await tickFor(ctx, caseId)).toBe("rescheduled");
    expect(await tickFor(ctx, caseId)).toBe("parked");
    // Never silently checked again: the action ended, nothing is claimed, the provider is not asked.
    expect(await tickFor(ctx, caseId)).toBeUndefined();
    expect(statusReads(jobId)).toBe(3);

    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect(row).toMatchObject({ stage: "polling", state: "parked" });
    const action = await db.recoveryAction.findUniqueOrThrow({ where: { id: actionId } });
    expect(action).toMatchObject({ status: "unresolved", outcome: "bound_reached" });

    const { event, evidence } = await stopEvent(caseId);
    expect(evidence.bound).toMatchObject({ limit: "attempts", attempts: 3, maxAttempts: 3 });
    const observations = await db.providerObservation.findMany({ where: { caseId, actionId }, orderBy: { id: "asc" } });
    expect(observations.map((o) => o.kind)).toEqual(["running", "running", "running"]);
    expect(evidence.checks.map((c) => [c.at, c.kind, c.providerStatus])).toEqual(
      observations.map((o) => [o.observedAt.toISOString(), o.kind, o.providerStatus]),
    );
    const words = describeEvent(event);
    expect(words.sentence).toBe("Stopped at the approval's limit: back to a reviewer");
    expect(words.said).toContain("its 3 attempts are used up");
    expect(words.said).toContain("approve another round of status checks (a new bound) or escalate");

    // The next step the evidence names is open: a new approval is a new action with a bound of its own.
    await approveCase(db, reviewer, caseId, { action: "resume_poll", evidence: "one more round" });
    expect(await tickFor(ctx, caseId)).toBe("rescheduled");
  });

  it("stops when the time since approval passes the bound, on the worker's clock", async () => {
    let offsetMs = 0;
    const ctx = await contextWith(
      { maxAttempts: 1_000, maxSeconds: 600 },
      { now: () => new Date(Date.now() + offsetMs) },
    );
    const { caseId, actionId } = await approvedNeverFinishing();

    expect(await tickFor(ctx, caseId)).toBe("rescheduled");
    offsetMs = 601_000;
    expect(await tickFor(ctx, caseId)).toBe("parked");

    const action = await db.recoveryAction.findUniqueOrThrow({ where: { id: actionId } });
    expect(action.outcome).toBe("bound_reached");
    const { evidence } = await stopEvent(caseId);
    expect(evidence.bound).toMatchObject({ limit: "time", attempts: 2, maxSeconds: 600 });
    expect(evidence.checks).toHaveLength(2);
    expect(String(evidence.evidence)).toContain("10 min have passed since it was approved");
  });

  it("schedules the next check within the bound no later than the bound's end", async () => {
    // An hour's bound and a wait of one to two hours: however slowly a busy machine reaches the tick,
    // the check falls within the bound and its next one is cut to the bound's end.
    const ctx = await contextWith(
      { maxAttempts: 1_000, maxSeconds: 3_600 },
      { pollBaseSeconds: 7_200, pollMaxSeconds: 7_200 },
    );
    const { caseId, actionId } = await approvedNeverFinishing();
    expect(await tickFor(ctx, caseId)).toBe("rescheduled");
    const action = await db.recoveryAction.findUniqueOrThrow({ where: { id: actionId } });
    expect(action.readyAt.getTime()).toBe(action.createdAt.getTime() + 3_600_000);
  });

  it("counts a throttled check as an attempt, so a provider that keeps refusing cannot hold a case for ever", async () => {
    const ctx = await contextWith({ maxAttempts: 1, maxSeconds: 24 * 3600 });
    const { caseId, jobId } = await approvedNeverFinishing();
    // Longer than the adapter waits in-call: it answers unknown with the wait, and the worker would reschedule.
    sim.state.faults.add({ match: { jobId, route: "status" }, fault: { type: "rate_limit", retryAfterSeconds: 120 } });

    expect(await tickFor(ctx, caseId)).toBe("parked");
    const { evidence } = await stopEvent(caseId);
    expect(evidence.bound).toMatchObject({ limit: "attempts", attempts: 1 });
    expect(String(evidence.evidence)).toContain("provider throttled the check");
  });
});
