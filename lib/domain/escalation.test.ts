import { describe, expect, it } from "vitest";
import type { CaseSnapshot } from "./case-commands";
import { escalatableSnapshots, escalationReason, isOverdue, settledDeadline } from "./escalation";
import { CASE_STATES, STAGES } from "./stages";
import { decide } from "./transitions";

const command = { type: "escalate_overdue", evidence: "retry_deadline_passed" } as const;

describe("escalate_overdue", () => {
  it("flags an open case without touching its state, stage or job", () => {
    const from: CaseSnapshot = Object.freeze({ stage: "polling", state: "claimed", providerJobId: "job-1" });
    const decision = decide(from, command);
    expect(decision).toMatchObject({ ok: true, auditKind: "deadline_escalated", changesState: false });
    if (decision.ok) expect(decision.next).toEqual(from);
  });

  it("escalates an episode once", () => {
    const decision = decide({ stage: "delivery", state: "parked", providerJobId: "j", escalated: true }, command);
    expect(decision.ok).toBe(false);
    if (!decision.ok) expect(decision.error.code).toBe("illegal_transition");
  });

  it("leaves resolved cases alone, whatever their stage", () => {
    for (const stage of STAGES) {
      const decision = decide({ stage, state: "resolved", providerJobId: null }, command);
      expect(decision.ok).toBe(false);
    }
  });

  it("needs evidence", () => {
    const decision = decide({ stage: "polling", state: "parked", providerJobId: "j" }, { ...command, evidence: " " });
    expect(decision.ok).toBe(false);
    if (!decision.ok) expect(decision.error.code).toBe("evidence_required");
  });
});

describe("the sweep's targets", () => {
  it("are exactly the open (stage, state) pairs", () => {
    const targets = escalatableSnapshots();
    expect(targets).toHaveLength(STAGES.length * (CASE_STATES.length - 1));
    expect(targets.some((t) => t.state === "resolved")).toBe(false);
  });

  it("name the submit deadline for an uncertain submission and the retry deadline otherwise", () => {
    expect(escalationReason("submission_uncertain")).toBe("submit_deadline_passed");
    for (const stage of ["polling", "delivery", "generation_failed"] as const) {
      expect(escalationReason(stage)).toBe("retry_deadline_passed");
    }
  });

  it("count a deadline as passed only strictly after it, and no deadline never", () => {
    const at = new Date("2026-12-01T10:00:00Z");
    expect(isOverdue(at, new Date("2026-12-01T10:00:00.001Z"))).toBe(true);
    expect(isOverdue(at, at)).toBe(false);
    expect(isOverdue(null, at)).toBe(false);
  });
});

describe("an uncertain submission's settled deadline", () => {
  const deadline = new Date("2026-12-01T10:00:00Z");
  it("adds the settling period to a producer's own deadline", () => {
    expect(settledDeadline({ deadline, deadlineIncludesSettling: false, settlingSeconds: 900 })).toEqual(
      new Date("2026-12-01T10:15:00Z"),
    );
  });
  it("does not add it twice to a send permit's deadline, which has it already", () => {
    expect(settledDeadline({ deadline, deadlineIncludesSettling: true, settlingSeconds: 900 })).toEqual(deadline);
  });
});
