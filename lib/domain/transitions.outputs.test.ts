import { describe, expect, it } from "vitest";
import { availableCaseActions } from "./available-actions";
import type { CaseCommand, CaseSnapshot } from "./case-commands";
import { decide, hasLostOutputs } from "./transitions";

const lost: CaseSnapshot = Object.freeze({
  stage: "delivery",
  state: "parked",
  providerJobId: "job-1",
  outputsUnavailable: true,
});
const evidence = "the provider reports data_removed";

function refusal(from: CaseSnapshot, command: CaseCommand) {
  const decision = decide(from, command);
  return decision.ok ? null : decision.error.code;
}

describe("a delivery whose outputs the provider no longer has", () => {
  it("is recorded by the worker that held the claim, and parks the case", () => {
    const claimed: CaseSnapshot = { stage: "delivery", state: "claimed", providerJobId: "job-1" };
    const decision = decide(claimed, { type: "mark_outputs_unavailable", evidence });
    expect(decision.ok && decision.next).toEqual(lost);
    expect(decision.ok && decision.auditKind).toBe("outputs_unavailable_observed");
    expect(decision.ok && decision.changesState).toBe(true);
  });

  it("refuses another copy: it cannot succeed", () => {
    expect(refusal(lost, { type: "approve", action: "retry_delivery", evidence })).toBe("outputs_unavailable");
  });

  it("permits accepting the loss, which resolves the case and keeps the fact", () => {
    const decision = decide(lost, { type: "accept_outputs_lost", evidence });
    expect(decision.ok && decision.next).toEqual({ ...lost, state: "resolved" });
    expect(decision.ok && decision.auditKind).toBe("outputs_loss_accepted");
  });

  it("permits requesting and closing for a replacement, as a proven failure does", () => {
    expect(decide(lost, { type: "request_replacement", evidence }).ok).toBe(true);
    const closed = decide(lost, { type: "close_for_replacement", evidence });
    expect(closed.ok && closed.next.state).toBe("resolved");
  });

  it("refuses accepting a loss nobody observed, and a replacement for a delivery that can still be copied", () => {
    const copyable: CaseSnapshot = { stage: "delivery", state: "parked", providerJobId: "job-1" };
    expect(refusal(copyable, { type: "accept_outputs_lost", evidence })).toBe("action_not_permitted_for_stage");
    expect(refusal(copyable, { type: "request_replacement", evidence })).toBe("replacement_not_allowed");
    expect(refusal(copyable, { type: "close_for_replacement", evidence })).toBe("replacement_not_allowed");
    expect(refusal({ ...lost, state: "ready" }, { type: "accept_outputs_lost", evidence })).toBe("illegal_transition");
  });

  it("forgets the fact when a new episode reopens the case", () => {
    const resolved: CaseSnapshot = { ...lost, state: "resolved" };
    const decision = decide(resolved, { type: "reopen", stage: "delivery", providerJobId: "job-2" });
    expect(decision.ok && decision.next).toEqual({ stage: "delivery", state: "parked", providerJobId: "job-2" });
    expect(decision.ok && hasLostOutputs(decision.next)).toBe(false);
  });

  it("is offered in the console as exactly those two decisions besides review and notes", () => {
    expect([...availableCaseActions(lost, ["reviewer"])].sort()).toEqual([
      "accept_outputs_lost",
      "add_note",
      "assign",
      "request_replacement",
      "review",
    ]);
    expect(availableCaseActions({ ...lost, outputsUnavailable: undefined }, ["reviewer"]).has("approve")).toBe(true);
  });
});
