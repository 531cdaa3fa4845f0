import { describe, expect, it } from "vitest";
import type { CaseCommand } from "./case-commands";
import { CASE_STATES, STAGES } from "./stages";
import { stateMove } from "./state-moves";
import { decide } from "./transitions";

describe("state-only moves, as set-based statements apply them", () => {
  it.each([
    [{ type: "claim" }, "ready", { stages: ["polling", "delivery"], to: "claimed", auditKind: "claimed" }],
    [{ type: "rescue_lease" }, "claimed", { stages: ["polling", "delivery"], to: "ready", auditKind: "lease_rescued" }],
    [
      { type: "release_claim" },
      "claimed",
      { stages: ["polling", "delivery"], to: "ready", auditKind: "claim_released" },
    ],
  ] as const)("%o from %s", (command, from, expected) => {
    expect(stateMove(command, from)).toEqual({ from, ...expected });
  });

  it.each([
    [{ type: "claim" }, "ready"],
    [{ type: "rescue_lease" }, "claimed"],
  ] as const)("%o moves exactly the cases decide() allows, whatever their job", (command, from) => {
    const move = stateMove(command, from);
    for (const stage of STAGES) {
      for (const state of CASE_STATES) {
        for (const providerJobId of [null, "job"]) {
          const decision = decide({ stage, state, providerJobId }, command);
          const inMove = state === move.from && move.stages.includes(stage);
          expect(decision.ok, `${stage}/${state}`).toBe(inMove);
          if (decision.ok) expect(decision.next).toEqual({ stage, state: move.to, providerJobId });
        }
      }
    }
  });

  it.each([
    [{ type: "claim" }, "parked", "moves no case"],
    [{ type: "move_stage", stage: "delivery", evidence: "done" }, "claimed", "not a state-only move"],
    [{ type: "reopen", stage: "polling", providerJobId: "j" }, "resolved", "not a state-only move"],
    [{ type: "approve", action: "retry_delivery", evidence: "go" }, "parked", "depends on more than the stage"],
  ] as Array<[CaseCommand, (typeof CASE_STATES)[number], string]>)("refuses %o from %s", (command, from, message) => {
    expect(() => stateMove(command, from)).toThrow(new RegExp(message));
  });
});
