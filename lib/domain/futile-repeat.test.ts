import { describe, expect, it } from "vitest";
import { describeAttempt, type LastAttempt } from "./case-progress";
import { type AttemptFinding, FUTILE_REPEAT_WORDS, futileRepeat } from "./futile-repeat";

const check = (overrides: Partial<AttemptFinding> = {}): AttemptFinding => ({
  kind: "resume_poll",
  failed: true,
  answer: null,
  outcome: "unresolved",
  ...overrides,
});

describe("whether repeating the last attempt can help", () => {
  it("cannot after a status check the provider answered with not found (HTTP 404)", () => {
    expect(futileRepeat("polling", check({ answer: "not_found" }))).toEqual({
      code: "repeat_cannot_help",
      reason: "job_unknown",
      message: FUTILE_REPEAT_WORDS.job_unknown,
    });
  });

  it("cannot after a definite refusal or once the outputs are gone", () => {
    expect(futileRepeat("polling", check({ answer: "failed" }))?.reason).toBe("generation_refused");
    expect(
      futileRepeat("delivery", check({ kind: "retry_delivery", answer: "failed", outcome: "unresolved" }))?.reason,
    ).toBe("generation_refused");
    expect(futileRepeat("delivery", check({ kind: "retry_delivery", outcome: "outputs_unavailable" }))?.reason).toBe(
      "outputs_gone",
    );
  });

  it("can after a transport error, throttling, a reached bound or a poisoned claim", () => {
    for (const answer of ["unknown", "running", null]) {
      for (const outcome of ["unresolved", "bound_reached", "poison"]) {
        expect(futileRepeat("polling", check({ answer, outcome }))).toBeNull();
      }
    }
  });

  it("can after a delivery's first not found: only a second one on another claim proves the loss", () => {
    expect(futileRepeat("delivery", check({ kind: "retry_delivery", answer: "not_found" }))).toBeNull();
  });

  it("is not asked when nothing failed, nothing ran, or the attempt was of another kind", () => {
    expect(futileRepeat("polling", null)).toBeNull();
    expect(futileRepeat("polling", check({ failed: false, answer: "not_found" }))).toBeNull();
    expect(futileRepeat("delivery", check({ kind: "resume_poll", answer: "failed" }))).toBeNull();
    expect(futileRepeat("generation_failed", check({ answer: "failed" }))).toBeNull();
  });

  it("says why in words, never in identifiers", () => {
    for (const words of Object.values(FUTILE_REPEAT_WORDS)) expect(words).not.toMatch(/[a-z]+_[a-z]+/);
  });
});

describe("a check that worked and found the generation failed", () => {
  const attempt: LastAttempt = {
    kind: "resume_poll",
    failed: true,
    reason: "the generation failed: NSFW filter triggered",
    at: "2026-12-05T10:00:00Z",
    count: 1,
    outcome: "generation_failed",
    answer: "failed",
  };
  it("is said as what it found, not as a failed check", () => {
    expect(describeAttempt(attempt)).toBe("Status check found the generation failed: NSFW filter triggered");
  });
  it("while a check that could not learn anything is said to have failed", () => {
    expect(
      describeAttempt({
        ...attempt,
        outcome: "unresolved",
        answer: "not_found",
        reason: "the provider does not know job j (HTTP 404)",
      }),
    ).toBe("Status check failed: the provider does not know job j (HTTP 404)");
  });
});
