import { describe, expect, it } from "vitest";
import {
  CASE_STATES,
  checkStageFacts,
  isCaseState,
  isRecoveryActionKind,
  isStage,
  permittedRecoveryAction,
  RECOVERY_ACTION_KINDS,
  requiresProviderJobId,
  STAGES,
} from "./stages";

describe("stages", () => {
  it("lists the four stages, states and two recovery actions", () => {
    expect(STAGES).toEqual(["submission_uncertain", "polling", "delivery", "generation_failed"]);
    expect(CASE_STATES).toEqual(["parked", "ready", "claimed", "resolved"]);
    expect(RECOVERY_ACTION_KINDS).toEqual(["resume_poll", "retry_delivery"]);
  });

  it("maps each stage to its only permitted recovery action", () => {
    expect(STAGES.map((stage) => [stage, permittedRecoveryAction(stage)])).toEqual([
      ["submission_uncertain", null],
      ["polling", "resume_poll"],
      ["delivery", "retry_delivery"],
      ["generation_failed", null],
    ]);
  });

  it("requires a provider job ID exactly for polling and delivery", () => {
    expect(STAGES.filter(requiresProviderJobId)).toEqual(["polling", "delivery"]);
  });

  it("guards reject look-alikes", () => {
    for (const value of ["polling", "generation_failed"]) expect(isStage(value)).toBe(true);
    for (const value of ["Polling", "uncertain", "", "__proto__", "toString", null, 1])
      expect(isStage(value)).toBe(false);
    expect(isCaseState("claimed")).toBe(true);
    expect(isCaseState("done")).toBe(false);
    expect(isRecoveryActionKind("retry_delivery")).toBe(true);
    for (const value of ["submit_again", "create", "resume_poll "]) expect(isRecoveryActionKind(value)).toBe(false);
  });

  it("checks that the facts match the stage", () => {
    const code = (stage: (typeof STAGES)[number], id: string | null) => {
      const result = checkStageFacts(stage, id);
      return result.ok ? "ok" : result.error.code;
    };
    expect(code("polling", null)).toBe("provider_job_id_required");
    expect(code("delivery", "")).toBe("provider_job_id_required");
    expect(code("delivery", "job")).toBe("ok");
    expect(code("submission_uncertain", null)).toBe("ok");
    expect(code("submission_uncertain", "job")).toBe("invalid_input");
    expect(code("generation_failed", null)).toBe("ok");
    expect(code("generation_failed", "job")).toBe("ok");
  });
});
