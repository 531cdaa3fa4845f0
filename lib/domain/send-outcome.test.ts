import { describe, expect, it } from "vitest";
import { completedSend, type SendFacts, unknownSendOutcome } from "./send-outcome";
import { PERMIT_STATUSES } from "./send-permits";
import { CASE_STATES, STAGES } from "./stages";

const noCase: SendFacts["case"] = null;

describe("DESIGN rule 18: a hold's send outcome", () => {
  it("is unknown while a permit is live or accepted and not parked", () => {
    for (const status of PERMIT_STATUSES) {
      const unknown = unknownSendOutcome({ permit: { status, parked: false }, case: noCase }) !== null;
      expect([status, unknown]).toEqual([status, ["live", "accepted"].includes(status)]);
    }
  });

  it("follows the case of a parked uncertain permit: unknown while uncertain, known once the case proved no job", () => {
    const permit = { status: "uncertain" as const, parked: true };
    const uncertain = { stage: "submission_uncertain" as const, state: "parked" as const, current: true };
    expect(unknownSendOutcome({ permit, case: uncertain })).toMatch(/uncertain submission/);
    expect(
      unknownSendOutcome({ permit, case: { stage: "generation_failed", state: "resolved", current: true } }),
    ).toBeNull();
  });

  it("is decided by the case once the permit parked", () => {
    const facts: SendFacts = {
      permit: { status: "accepted", parked: true },
      case: { stage: "delivery", state: "parked", current: true },
    };
    expect(unknownSendOutcome(facts)).toBeNull();
    expect(unknownSendOutcome({ ...facts, case: { stage: "polling", state: "claimed", current: true } })).toMatch(
      /still being checked/,
    );
  });

  it("is unknown for an open uncertain or polling case of the hold's attempt, in every open state", () => {
    for (const stage of STAGES) {
      for (const state of CASE_STATES) {
        const unknown = unknownSendOutcome({ permit: null, case: { stage, state, current: true } }) !== null;
        const expected = state !== "resolved" && (stage === "submission_uncertain" || stage === "polling");
        expect([stage, state, unknown]).toEqual([stage, state, expected]);
      }
    }
  });

  it("is known when the case has moved on to another attempt, or there is neither permit nor case", () => {
    expect(
      unknownSendOutcome({ permit: null, case: { stage: "polling", state: "parked", current: false } }),
    ).toBeNull();
    expect(unknownSendOutcome({ permit: null, case: noCase })).toBeNull();
    expect(unknownSendOutcome({ permit: { status: "rejected", parked: false }, case: noCase })).toBeNull();
  });
});

describe("a send known to be completed (DESIGN rule 18)", () => {
  it("is the delivery case of the hold's attempt, in every state, and nothing else", () => {
    for (const stage of STAGES) {
      for (const state of CASE_STATES) {
        const completed = completedSend({ permit: null, case: { stage, state, current: true } }) !== null;
        expect([stage, state, completed]).toEqual([stage, state, stage === "delivery"]);
      }
    }
    expect(completedSend({ permit: null, case: { stage: "delivery", state: "parked", current: false } })).toBeNull();
  });
});
