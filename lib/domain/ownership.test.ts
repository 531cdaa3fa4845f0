import { describe, expect, it } from "vitest";
import { isDecidingCommand, ownedBySomeoneElse, ownershipRefuses } from "./ownership";

const reviewer = { id: "r1", roles: ["reviewer"] as const };

describe("assignment as ownership", () => {
  it.each([
    { ownership: false, assigneeId: "r2", person: reviewer, owned: false },
    { ownership: true, assigneeId: null, person: reviewer, owned: false },
    { ownership: true, assigneeId: "r1", person: reviewer, owned: false },
    { ownership: true, assigneeId: "r2", person: reviewer, owned: true },
    { ownership: true, assigneeId: "r2", person: { id: "a1", roles: ["reviewer", "admin"] as const }, owned: false },
  ])("ownership $ownership, assigned to $assigneeId, asked by $person.id: owned by someone else $owned", (row) => {
    expect(ownedBySomeoneElse(row)).toBe(row.owned);
  });

  it("decisions are owned; reading, notes, assignment and the worker's own steps are not", () => {
    for (const command of [
      "approve",
      "reconcile_attach",
      "reconcile_no_job",
      "accept_failure",
      "request_replacement",
    ] as const)
      expect(isDecidingCommand(command)).toBe(true);
    for (const command of ["add_note", "assign", "claim", "finish_resolved", "observe_outcome", "reopen"] as const)
      expect(isDecidingCommand(command)).toBe(false);
  });

  it("refuses a person only a decision on a case someone else owns", () => {
    const owned = { ownership: true, assigneeId: "r2", person: reviewer };
    expect(ownershipRefuses({ ...owned, command: "approve" })).toBe(true);
    expect(ownershipRefuses({ ...owned, command: "add_note" })).toBe(false);
    expect(ownershipRefuses({ ...owned, command: "assign" })).toBe(false);
    expect(ownershipRefuses({ ...owned, ownership: false, command: "approve" })).toBe(false);
    expect(ownershipRefuses({ ...owned, assigneeId: "r1", command: "approve" })).toBe(false);
  });
});
