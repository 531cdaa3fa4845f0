import { describe, expect, it } from "vitest";
import { availableCaseActions } from "./available-actions";

const sorted = (set: Set<string>) => [...set].sort();

describe("actions the console offers", () => {
  it("offers only reconciliation (and notes/assignment) on an uncertain submission", () => {
    const snapshot = { stage: "submission_uncertain", state: "parked", providerJobId: null } as const;
    expect(sorted(availableCaseActions(snapshot, ["reviewer"]))).toEqual([
      "add_note",
      "assign",
      "reconcile_attach",
      "reconcile_no_job",
      "review",
    ]);
    expect(sorted(availableCaseActions(snapshot, ["operator"]))).toEqual(["add_note", "assign"]);
  });

  it("offers approval for polling and delivery, failure handling only for generation_failed", () => {
    const polling = availableCaseActions({ stage: "polling", state: "parked", providerJobId: "j" }, ["reviewer"]);
    expect(polling.has("approve")).toBe(true);
    expect(polling.has("request_replacement")).toBe(false);
    const failed = availableCaseActions({ stage: "generation_failed", state: "parked", providerJobId: null }, [
      "reviewer",
    ]);
    expect(failed.has("approve")).toBe(false);
    expect(failed.has("accept_failure")).toBe(true);
    expect(failed.has("request_replacement")).toBe(true);
  });

  it("offers no decisions while a worker holds the case, and finance gets notes only", () => {
    const claimed = availableCaseActions({ stage: "delivery", state: "claimed", providerJobId: "j" }, ["reviewer"]);
    expect(sorted(claimed)).toEqual(["add_note", "assign"]);
    const finance = availableCaseActions({ stage: "generation_failed", state: "parked", providerJobId: null }, [
      "finance",
    ]);
    expect(sorted(finance)).toEqual(["add_note"]);
  });
});
