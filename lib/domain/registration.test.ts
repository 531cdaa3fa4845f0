import { describe, expect, it } from "vitest";
import { decideRegistration, type RegistrationFacts } from "./registration";
import type { CaseState } from "./stages";

const FP_A = `sha256:${"a".repeat(64)}`;
const FP_B = `sha256:${"b".repeat(64)}`;
const facts: RegistrationFacts = {
  operationId: "op-1",
  attemptId: "att-1",
  stage: "polling",
  providerJobId: "job-1",
  fingerprint: FP_A,
};
const existingIn = (state: CaseState, registered = facts) => ({ registered, state });
const outcome = (result: ReturnType<typeof decideRegistration>) => (result.ok ? result.value.kind : result.error.code);

describe("decideRegistration", () => {
  it("creates when nothing exists and returns the existing case for identical facts in any state", () => {
    expect(outcome(decideRegistration(null, facts))).toBe("create");
    for (const state of ["parked", "ready", "claimed", "resolved"] as const) {
      expect(outcome(decideRegistration(existingIn(state), { ...facts }))).toBe("existing");
    }
  });

  it("compares with the registered facts, so a replay after reconciliation is still recognised", () => {
    const original: RegistrationFacts = { ...facts, stage: "submission_uncertain", providerJobId: null };
    expect(outcome(decideRegistration(existingIn("parked", original), { ...original }))).toBe("existing");
  });

  it("rejects any differing fact while the case is open", () => {
    const changes: Partial<RegistrationFacts>[] = [
      { attemptId: "att-2" },
      { stage: "delivery" },
      { providerJobId: "job-2" },
      { fingerprint: FP_B },
    ];
    for (const state of ["parked", "ready", "claimed"] as const) {
      for (const change of changes) {
        expect(outcome(decideRegistration(existingIn(state), { ...facts, ...change }))).toBe(
          "conflicting_registration",
        );
      }
    }
  });

  it("opens a new episode on a resolved case for a new attempt or a new stage", () => {
    const resolved = existingIn("resolved");
    expect(outcome(decideRegistration(resolved, { ...facts, attemptId: "att-2", providerJobId: "job-2" }))).toBe(
      "new_episode",
    );
    expect(outcome(decideRegistration(resolved, { ...facts, stage: "delivery" }))).toBe("new_episode");
    expect(outcome(decideRegistration(resolved, { ...facts, attemptId: "att-2", fingerprint: FP_B }))).toBe(
      "new_episode",
    );
  });

  it("rejects the same attempt coming back with a different request or job", () => {
    const resolved = existingIn("resolved");
    expect(outcome(decideRegistration(resolved, { ...facts, fingerprint: FP_B }))).toBe("conflicting_registration");
    expect(outcome(decideRegistration(resolved, { ...facts, stage: "delivery", fingerprint: FP_B }))).toBe(
      "conflicting_registration",
    );
    expect(outcome(decideRegistration(resolved, { ...facts, providerJobId: "job-2" }))).toBe(
      "conflicting_registration",
    );
  });

  it("validates the incoming facts first", () => {
    expect(outcome(decideRegistration(null, { ...facts, providerJobId: null }))).toBe("provider_job_id_required");
    expect(outcome(decideRegistration(null, { ...facts, stage: "delivery", providerJobId: " " }))).toBe(
      "provider_job_id_required",
    );
    expect(outcome(decideRegistration(null, { ...facts, stage: "submission_uncertain" }))).toBe("invalid_input");
    expect(outcome(decideRegistration(null, { ...facts, fingerprint: "sha256:abc" }))).toBe("invalid_input");
    expect(outcome(decideRegistration(null, { ...facts, operationId: "" }))).toBe("invalid_input");
    expect(outcome(decideRegistration(existingIn("parked"), { ...facts, attemptId: " " }))).toBe("invalid_input");
    expect(outcome(decideRegistration(null, { ...facts, stage: "generation_failed", providerJobId: null }))).toBe(
      "create",
    );
  });
});
