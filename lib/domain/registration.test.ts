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
  provider: "replicate",
  model: "acme/video-1",
  holdId: "hold-1",
  amountMicros: 500_000n,
  currency: "USD",
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

  it("names each differing money and provider fact, never its value, while the case is open", () => {
    const changes: [Partial<RegistrationFacts>, string][] = [
      [{ holdId: "hold-2" }, "hold.holdId"],
      [{ amountMicros: 500_001n }, "hold.amountMicros"],
      [{ currency: "EUR" }, "hold.currency"],
      [{ provider: "fal" }, "provider"],
      [{ model: "acme/video-2" }, "model"],
      [{ fingerprint: FP_B }, "requestFingerprint"],
    ];
    for (const state of ["parked", "ready", "claimed"] as const) {
      for (const [change, field] of changes) {
        const result = decideRegistration(existingIn(state), { ...facts, ...change });
        expect(result.ok).toBe(false);
        if (result.ok) continue;
        expect(result.error.code).toBe("conflicting_registration");
        expect(result.error.details).toEqual({ differing: [field] });
        expect(result.error.message).toContain(field);
        for (const value of Object.values(change)) expect(result.error.message).not.toContain(String(value));
      }
    }
  });

  it("lists every differing field at once", () => {
    const result = decideRegistration(existingIn("parked"), { ...facts, amountMicros: 1n, currency: "EUR" });
    expect(result.ok ? null : result.error.details).toEqual({ differing: ["hold.amountMicros", "hold.currency"] });
  });

  it("never moves an operation to another provider or model, even in a new episode", () => {
    const resolved = existingIn("resolved");
    const newAttempt = { ...facts, attemptId: "att-2", providerJobId: "job-2", holdId: "hold-2" };
    expect(outcome(decideRegistration(resolved, newAttempt))).toBe("new_episode");
    expect(outcome(decideRegistration(resolved, { ...newAttempt, provider: "fal" }))).toBe("conflicting_registration");
    expect(outcome(decideRegistration(resolved, { ...newAttempt, model: "other" }))).toBe("conflicting_registration");
  });

  it("refuses the same attempt coming back with another hold after resolution", () => {
    const resolved = existingIn("resolved");
    expect(outcome(decideRegistration(resolved, { ...facts, amountMicros: 1n }))).toBe("conflicting_registration");
    expect(outcome(decideRegistration(resolved, { ...facts, holdId: "hold-2" }))).toBe("conflicting_registration");
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
