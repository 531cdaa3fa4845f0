import { describe, expect, it } from "vitest";
import { AUDIT_KINDS } from "./case-commands";
import { describeEvent } from "./timeline-words";

const event = (kind: string, after: unknown = null, evidence: unknown = null, before: unknown = null) => ({
  kind,
  after,
  before,
  evidence,
});

describe("the timeline in words", () => {
  it.each([
    [event("parked", { stage: "submission_uncertain" }), "Parked as an uncertain submission"],
    [event("hold_reserved", { holdId: "h-1", amountMicros: 1_500_000, currency: "USD" }), "$1.50 put on hold (h-1)"],
    [event("hold_settled", {}, null, { holdId: "h-1" }), "Hold h-1 settled"],
    [event("approved", {}, { action: "retry_delivery", text: "go" }), "Approved: retry copying the video"],
    [event("reconciled_job_found", {}, { providerJobId: "pred-9" }), "Provider job pred-9 attached"],
    [event("claimed", {}, { workerId: "w1" }), "A worker took it (w1)"],
    [event("assigned", {}, { assigneeId: "u-1", previousAssigneeId: null }), "Assigned"],
    [event("assigned", {}, { assigneeId: null, previousAssigneeId: "u-1" }), "Unassigned"],
    [event("assigned", {}, { assigneeId: "u-1", assigneeName: "Ada Reviewer" }), "Assigned to Ada Reviewer"],
    [event("notification_resent", {}, { webhookIds: ["msg_1"] }), "Producer's given-up notification sent again"],
    [
      event("notification_resent", {}, { webhookIds: ["msg_1", "msg_2"] }),
      "Producer's given-up notifications (2) sent again",
    ],
    [event("something_new"), "Something new"],
  ])("%o -> %s", (input, sentence) => {
    expect(describeEvent(input).sentence).toBe(sentence);
  });

  it("says every case transition in words, not its stored name", () => {
    for (const kind of AUDIT_KINDS) expect(describeEvent(event(kind)).sentence).not.toContain("_");
  });

  it("keeps what a person wrote or the worker found, as text", () => {
    expect(describeEvent(event("note_added", {}, { text: "<b>call them</b>" })).said).toBe("<b>call them</b>");
    expect(describeEvent(event("recovery_unresolved", {}, { evidence: "provider 404" })).said).toBe("provider 404");
    expect(describeEvent(event("claimed", {}, { workerId: "w1" })).said).toBeNull();
  });

  it("tells an action stopped at its bound from one that failed", () => {
    expect(describeEvent(event("recovery_unresolved", {}, { evidence: "x" })).sentence).toBe(
      "The recovery attempt failed",
    );
    const stopped = describeEvent(event("recovery_unresolved", {}, { evidence: "x", bound: { limit: "time" } }));
    expect(stopped.sentence).toBe("Stopped at the approval's limit: back to a reviewer");
  });
});
