import { describe, expect, it } from "vitest";
import { availableCaseActions } from "./available-actions";
import type { CaseCommand, CaseSnapshot } from "./case-commands";
import { orderDecisions } from "./case-progress";
import { CASE_STATES, STAGES } from "./stages";
import { decide } from "./transitions";

// Decision 068: a job to check whose last status check the provider answered "not found" is
// reconciled like an uncertain submission: a different job is attached, or none is found to exist.
const polling: CaseSnapshot = { stage: "polling", state: "parked", providerJobId: "job-gone" };
const unknown: CaseSnapshot = { ...polling, jobUnknown: true };
const attach = (providerJobId: string): CaseCommand => ({
  type: "reconcile_attach",
  providerJobId,
  evidence: "the shop's log names another job",
});
const noJob: CaseCommand = { type: "reconcile_no_job", evidence: "nothing in the provider's list" };

function codeOf(from: CaseSnapshot, command: CaseCommand): string {
  const decision = decide(from, command);
  return decision.ok ? "ok" : decision.error.code;
}

describe("reconciling a job the provider does not know", () => {
  it("refuses an attach or a no-job verdict on a job to check without the finding", () => {
    expect(codeOf(polling, attach("job-other"))).toBe("illegal_transition");
    expect(codeOf(polling, noJob)).toBe("illegal_transition");
  });

  it("attaches a different job: the case checks that job next, and the finding does not travel on", () => {
    const decision = decide(unknown, attach("job-other"));
    expect(decision).toMatchObject({ ok: true, auditKind: "reconciled_job_found", changesState: true });
    if (!decision.ok) throw decision.error;
    expect(decision.next).toEqual({ stage: "polling", state: "parked", providerJobId: "job-other" });
  });

  it("refuses attaching the very job the provider does not know", () => {
    expect(codeOf(unknown, attach("job-gone"))).toBe("illegal_transition");
    expect(codeOf(unknown, attach(" job-gone "))).toBe("illegal_transition");
  });

  it("records that no job exists as for an uncertain submission: a failed generation without a job", () => {
    const decision = decide(unknown, noJob);
    expect(decision).toMatchObject({ ok: true, auditKind: "reconciled_no_job" });
    if (!decision.ok) throw decision.error;
    expect(decision.next).toEqual({ stage: "generation_failed", state: "parked", providerJobId: null });
  });

  it("reconciles only a parked case, and the finding opens no other stage to it", () => {
    for (const state of CASE_STATES.filter((s) => s !== "parked")) {
      expect(codeOf({ ...unknown, state }, attach("job-other"))).toBe("illegal_transition");
      expect(codeOf({ ...unknown, state }, noJob)).toBe("illegal_transition");
    }
    for (const stage of STAGES.filter((s) => s !== "polling" && s !== "submission_uncertain")) {
      expect(codeOf({ ...unknown, stage }, attach("job-other"))).toBe("illegal_transition");
      expect(codeOf({ ...unknown, stage }, noJob)).toBe("illegal_transition");
    }
  });

  it("leaves accepting a failure to a failed generation: a job to check has none to accept yet", () => {
    expect(codeOf(unknown, { type: "accept_failure", evidence: "gone" })).toBe("action_not_permitted_for_stage");
  });

  it("offers a reviewer both verdicts first after the failed check, the repeat last", () => {
    const offered = availableCaseActions(unknown, ["reviewer"]);
    expect([...offered]).toEqual(expect.arrayContaining(["reconcile_attach", "reconcile_no_job", "approve"]));
    expect(availableCaseActions(polling, ["reviewer"]).has("reconcile_attach")).toBe(false);
    expect(availableCaseActions(unknown, ["operator"]).has("reconcile_attach")).toBe(false);
    const failed = { kind: "resume_poll", failed: true, reason: null, at: "2026-12-05T10:00:00Z", count: 1 } as const;
    expect(orderDecisions(offered, failed).filter((n) => n !== "add_note" && n !== "assign")).toEqual([
      "reconcile_attach",
      "reconcile_no_job",
      "review",
      "approve",
    ]);
  });
});
