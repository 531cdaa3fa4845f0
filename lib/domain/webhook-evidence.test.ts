import { describe, expect, it } from "vitest";
import type { JobStatus } from "./job-status";
import { decide } from "./transitions";
import { meaningOfWebhook, type WebhookTarget } from "./webhook-evidence";

const answers: Record<string, JobStatus> = {
  running: { kind: "running", providerStatus: "processing" },
  completed: {
    kind: "completed",
    providerStatus: "succeeded",
    outputs: [{ url: "https://x/v.mp4" }],
    outputsRemoved: false,
  },
  removed: { kind: "completed", providerStatus: "succeeded", outputs: [], outputsRemoved: true },
  empty: { kind: "completed", providerStatus: "succeeded", outputs: [], outputsRemoved: false },
  failed: { kind: "failed", providerStatus: "failed", reason: "nsfw", canceled: false },
  unknown: { kind: "unknown", reason: "payload_error", attempts: 1 },
};

const targets: Record<string, WebhookTarget> = {
  parkedPolling: { kind: "case", stage: "polling", state: "parked" },
  readyPolling: { kind: "case", stage: "polling", state: "ready" },
  claimedPolling: { kind: "case", stage: "polling", state: "claimed" },
  parkedDelivery: { kind: "case", stage: "delivery", state: "parked" },
  resolved: { kind: "case", stage: "delivery", state: "resolved" },
  livePermit: { kind: "permit", status: "live" },
  acceptedPermit: { kind: "permit", status: "accepted" },
  completedPermit: { kind: "permit", status: "completed" },
  refUncertain: { kind: "referenced_case", stage: "submission_uncertain", state: "parked", providerJobId: null },
  refPolling: { kind: "referenced_case", stage: "polling", state: "parked", providerJobId: "job-1" },
  refNoJob: { kind: "referenced_case", stage: "generation_failed", state: "parked", providerJobId: null },
  refFailedJob: { kind: "referenced_case", stage: "generation_failed", state: "parked", providerJobId: "job-1" },
  refNoJobResolved: { kind: "referenced_case", stage: "generation_failed", state: "resolved", providerJobId: null },
  refLivePermit: { kind: "referenced_permit", status: "live" },
  none: { kind: "none" },
};

describe("what a verified provider webhook means", () => {
  const table: [keyof typeof targets, keyof typeof answers, string][] = [
    ["parkedPolling", "completed", "converge delivery settle"],
    ["parkedPolling", "failed", "converge generation_failed"],
    ["parkedPolling", "running", "observe"],
    ["parkedPolling", "removed", "observe"],
    ["parkedPolling", "empty", "observe"],
    ["parkedPolling", "unknown", "observe"],
    ["readyPolling", "completed", "observe"],
    ["claimedPolling", "completed", "observe"],
    ["claimedPolling", "failed", "observe"],
    ["parkedDelivery", "running", "observe"],
    ["parkedDelivery", "failed", "observe"],
    ["resolved", "completed", "observe"],
    ["livePermit", "running", "report accepted"],
    ["livePermit", "completed", "report completed"],
    ["livePermit", "failed", "report failed"],
    ["acceptedPermit", "running", "observe"],
    ["acceptedPermit", "completed", "report completed"],
    ["acceptedPermit", "unknown", "observe"],
    ["completedPermit", "failed", "observe"],
    ["refUncertain", "completed", "attach, converge delivery settle"],
    ["refUncertain", "running", "attach, observe"],
    ["refPolling", "completed", "observe"],
    ["refNoJob", "completed", "reopen, attach, converge delivery settle"],
    ["refNoJob", "running", "reopen, attach, observe"],
    ["refNoJob", "failed", "reopen, attach, converge generation_failed"],
    ["refFailedJob", "completed", "observe"],
    ["refNoJobResolved", "completed", "observe"],
    ["refLivePermit", "completed", "report completed"],
    ["none", "completed", "unmatched"],
  ];
  const text = (v: ReturnType<typeof meaningOfWebhook>): string => {
    switch (v.kind) {
      case "converge":
        return `converge ${v.stage}${v.settle ? " settle" : ""}`;
      case "report_permit":
        return `report ${v.outcome}`;
      case "attach":
        return `${v.reopen ? "reopen, " : ""}attach, ${text(v.andThen)}`;
      default:
        return v.kind;
    }
  };
  it.each(table)("%s + %s -> %s", (target, answer, expected) => {
    expect(text(meaningOfWebhook(targets[target] as WebhookTarget, answers[answer] as JobStatus))).toBe(expected);
  });

  it("converges only where the case writer allows it", () => {
    for (const stage of ["delivery", "generation_failed"] as const) {
      const decision = decide(
        { stage: "polling", state: "parked", providerJobId: "j" },
        { type: "observe_outcome", stage, evidence: "webhook" },
      );
      expect(decision).toMatchObject({ ok: true, next: { stage, state: "parked", providerJobId: "j" } });
    }
    const claimed = decide(
      { stage: "polling", state: "claimed", providerJobId: "j" },
      { type: "observe_outcome", stage: "delivery", evidence: "webhook" },
    );
    expect(claimed.ok).toBe(false);
  });
});
