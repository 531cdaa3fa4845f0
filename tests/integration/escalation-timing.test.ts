import { describe, expect, it } from "vitest";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { escalateOverdueCases } from "@/lib/services/case/escalate-overdue-cases";
import { parkCase } from "@/lib/services/case/park-case";
import { reconcileCase } from "@/lib/services/case/reconcile-case";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// Decision 061: a flag goes up only past a deadline that is real for the case, and comes down when
// the case resolves (or its submission is answered by an attached job).
const { db } = openTestDb();
const shop = producer("escalation-timing-shop");
const minutesFromNow = (minutes: number) => new Date(Date.now() + minutes * 60_000);
const escalatedAt = async (id: string) => (await db.case.findUniqueOrThrow({ where: { id } })).escalatedAt;

describe("an uncertain submission parked by its producer", () => {
  it("is not escalated while the provider's settling period runs, and is once it has passed", async () => {
    const { caseId } = await parkCase(
      db,
      shop,
      parkInput("submission_uncertain", { retryDeadline: minutesFromNow(-1).toISOString() }),
    );
    // The producer's own deadline passed a minute ago: the sweep of the next minute leaves it alone.
    expect(await escalateOverdueCases(db, worker(), 200, minutesFromNow(1))).toBe(0);
    expect(await escalatedAt(caseId)).toBeNull();
    // Past the deadline plus replicate's settling period (15 minutes), it is overdue.
    expect(await escalateOverdueCases(db, worker(), 200, minutesFromNow(15))).toBe(1);
    expect(await escalatedAt(caseId)).not.toBeNull();
  });

  it("loses its flag when a reviewer attaches the job, and is not escalated again as a job to check", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const { caseId } = await parkCase(
      db,
      shop,
      parkInput("submission_uncertain", { retryDeadline: minutesFromNow(-30).toISOString() }),
    );
    expect(await escalateOverdueCases(db, worker(), 200, minutesFromNow(1))).toBe(1);
    await reconcileCase(db, reviewer, caseId, {
      verdict: "attach",
      providerJobId: `job-${caseId}`,
      evidence: "found in the provider's job list",
    });
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect({ escalatedAt: row.escalatedAt, reason: row.escalationReason, deadline: row.retryDeadline }).toEqual({
      escalatedAt: null,
      reason: null,
      deadline: null,
    });
    expect(await escalateOverdueCases(db, worker(), 200, minutesFromNow(60))).toBe(0);
  });
});

describe("a resolved case", () => {
  it("carries no escalation flag", async () => {
    const reviewer = await makeUser(db, ["reviewer", "finance"]);
    const { caseId } = await parkCase(
      db,
      shop,
      parkInput("generation_failed", { retryDeadline: minutesFromNow(-10).toISOString() }),
    );
    expect(await escalateOverdueCases(db, worker(), 200, minutesFromNow(1))).toBe(1);
    await acceptFailure(db, reviewer, caseId, { evidence: "the provider's filter refused the prompt" });
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect({ state: row.state, escalatedAt: row.escalatedAt, reason: row.escalationReason }).toEqual({
      state: "resolved",
      escalatedAt: null,
      reason: null,
    });
    // The audit row of the escalation stays: the timeline still shows it happened.
    expect(await db.auditEvent.count({ where: { caseId, kind: "deadline_escalated" } })).toBe(1);
  });
});
