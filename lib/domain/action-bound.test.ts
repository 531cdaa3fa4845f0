import { describe, expect, it } from "vitest";
import { boundEvidence, boundReached, defaultActionBound, nextAttemptWithinBound } from "./action-bound";

const approvedAt = new Date("2026-12-05T10:00:00.000Z");
const at = (seconds: number) => new Date(approvedAt.getTime() + seconds * 1000);
const bound = { maxAttempts: 5, maxSeconds: 3600 };

describe("action bound (DESIGN rule 19)", () => {
  it("is within the bound below both limits", () => {
    expect(boundReached(bound, { attempts: 4, approvedAt, now: at(3599) })).toBeNull();
  });

  it("is reached when the attempts are used up, however little time passed", () => {
    expect(boundReached(bound, { attempts: 5, approvedAt, now: at(10) })).toEqual({
      limit: "attempts",
      attempts: 5,
      elapsedSeconds: 10,
      maxAttempts: 5,
      maxSeconds: 3600,
    });
  });

  it("is reached when the time since approval passes the bound, however few attempts were made", () => {
    expect(boundReached(bound, { attempts: 1, approvedAt, now: at(3600) })).toMatchObject({
      limit: "time",
      attempts: 1,
      elapsedSeconds: 3600,
    });
  });

  it("reads a clock behind the approval as no time passed", () => {
    expect(boundReached(bound, { attempts: 1, approvedAt, now: at(-30) })).toBeNull();
  });

  it("defaults to twice the documented run time, and as many attempts as that holds at the shortest wait", () => {
    expect(defaultActionBound(30 * 60, 30)).toEqual({ maxSeconds: 3600, maxAttempts: 121 });
    expect(defaultActionBound(6 * 60, 30)).toEqual({ maxSeconds: 720, maxAttempts: 25 });
    expect(defaultActionBound(600, 0).maxAttempts).toBe(1201);
  });

  it("never schedules an attempt past the end of the bound", () => {
    expect(nextAttemptWithinBound(at(4000), approvedAt, bound)).toEqual(at(3600));
    expect(nextAttemptWithinBound(at(100), approvedAt, bound)).toEqual(at(100));
  });

  it("says why in words, with the stage's own next step", () => {
    const reached = boundReached(bound, { attempts: 2, approvedAt, now: at(2 * 3600 + 300) });
    if (!reached) throw new Error("expected the bound to be reached");
    const words = boundEvidence("resume_poll", "polling", reached, "provider status processing: still running");
    expect(words).toContain("Status checks stopped: 60 min have passed since it was approved");
    expect(words).toContain("2 attempts over 2 h 5 min");
    expect(words).toContain("still running");
    expect(words).toContain("approve another round of status checks (a new bound) or escalate");
    const delivery = boundEvidence("retry_delivery", "delivery", { ...reached, limit: "attempts" }, "throttled");
    expect(delivery).toContain("Delivery attempts stopped: its 5 attempts are used up");
    expect(delivery).toContain("approve another delivery attempt (a new bound) or escalate");
    expect(boundEvidence("resume_poll", "delivery", reached, "x")).toMatch(/A reviewer decides: escalate$/);
  });
});
