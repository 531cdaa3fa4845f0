import { describe, expect, it } from "vitest";
import {
  type ActionRecord,
  describeAttempt,
  lastAttempt,
  orderDecisions,
  type ProgressFacts,
  waitingOn,
} from "./case-progress";

const NOW = Date.parse("2026-12-02T10:00:00Z");
const facts = (extra: Partial<ProgressFacts>): ProgressFacts => ({
  stage: "polling",
  state: "parked",
  outputsUnavailable: false,
  holdOpen: false,
  pendingReplacement: false,
  replacementToSubmit: false,
  ...extra,
});

describe("what a case waits on", () => {
  const table: [string, Partial<ProgressFacts>, string, string][] = [
    ["uncertain", { stage: "submission_uncertain" }, "reviewer", "attach the provider's job"],
    ["a job to check", {}, "reviewer", "never buy a new video"],
    ["a job the provider does not know", { jobUnknown: true }, "reviewer", "attach a different one"],
    ["a delivery", { stage: "delivery" }, "reviewer", "approve copying"],
    ["outputs gone", { stage: "delivery", outputsUnavailable: true }, "reviewer", "accept the loss"],
    ["a failure", { stage: "generation_failed" }, "reviewer", "accept the failure"],
    ["a request", { stage: "generation_failed", pendingReplacement: true }, "finance", "replacement request"],
    ["approved", { state: "ready" }, "worker", "queued for the worker"],
    ["approved, due now", { state: "ready", readyAt: "2026-12-02T09:59:00Z" }, "worker", "queued"],
    ["a later check", { state: "ready", readyAt: "2026-12-02T10:05:00Z" }, "provider", "next status check"],
    ["running", { state: "claimed", leaseUntil: "2026-12-02T10:01:00Z" }, "worker", "running it now"],
    ["resolved, money held", { state: "resolved", holdOpen: true }, "finance", "settle or release"],
    ["replaced", { state: "resolved", holdOpen: true, replacementToSubmit: true }, "producer", "replacement"],
    ["done", { state: "resolved" }, "nobody", "done"],
  ];
  it.each(table)("%s -> %s", (_name, extra, party, why) => {
    const waiting = waitingOn(facts(extra), NOW);
    expect(waiting.party).toBe(party);
    expect(waiting.why).toContain(why);
  });

  it("says until when, for a scheduled check and a running claim", () => {
    expect(waitingOn(facts({ state: "ready", readyAt: "2026-12-02T10:05:00Z" }), NOW).until).toBe(
      "2026-12-02T10:05:00Z",
    );
    expect(waitingOn(facts({ state: "claimed", leaseUntil: "2026-12-02T10:01:00Z" }), NOW).until).toBe(
      "2026-12-02T10:01:00Z",
    );
  });
});

describe("the last attempt", () => {
  const action = (id: string, status: string, finishedAt: string | null, kind = "retry_delivery"): ActionRecord => ({
    id,
    kind: kind as ActionRecord["kind"],
    status,
    outcome: null,
    finishedAt,
  });
  const actions = [
    action("a3", "ready", null),
    action("a2", "unresolved", "2026-12-02T09:50:00Z"),
    action("a1", "unresolved", "2026-12-02T09:40:00Z"),
    action("a0", "succeeded", "2026-12-02T09:30:00Z", "resume_poll"),
  ];

  it("is the latest finished one, with the worker's evidence while the case still carries it", () => {
    const last = lastAttempt(actions, { actionId: "a2", evidence: "provider 404: the job is unknown to the provider" });
    expect(last).toMatchObject({ kind: "retry_delivery", failed: true, count: 2, at: "2026-12-02T09:50:00Z" });
    expect(describeAttempt(last ?? expect.fail())).toBe(
      "Copying the video failed (attempt 2): provider 404: the job is unknown to the provider",
    );
    expect(lastAttempt(actions, { actionId: "a1", evidence: "older" })?.reason).toBeNull();
    expect(lastAttempt([action("x", "ready", null)], {})).toBeNull();
    expect(describeAttempt({ kind: "resume_poll", failed: false, reason: null, at: "", count: 1 })).toBe(
      "Status check succeeded",
    );
  });

  it("puts the decisions that do not repeat a failure first", () => {
    const failed = lastAttempt(actions, {});
    expect(orderDecisions(["approve", "accept_failure", "add_note", "review"], failed)).toEqual([
      "accept_failure",
      "review",
      "approve",
      "add_note",
    ]);
    const ok = lastAttempt([action("a0", "succeeded", "2026-12-02T09:30:00Z")], {});
    expect(orderDecisions(["approve", "accept_failure"], ok)).toEqual(["approve", "accept_failure"]);
    expect(orderDecisions(["approve", "accept_failure"], null)).toEqual(["approve", "accept_failure"]);
  });
});
