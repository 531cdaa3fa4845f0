import { describe, expect, it } from "vitest";
import { eventFields, fieldLabel } from "./event-fields";

describe("an event's details in words", () => {
  it("labels each fact and leaves the worker's bookkeeping to the stored record", () => {
    const evidence = {
      kind: "unresolved",
      evidence: "provider 404",
      actionId: "0f5c2d0e-6f0b-4c53-9d55-0d2f0a9e2b11",
      fencingToken: 7,
      nextCheckAt: "2026-12-05T01:13:15.000Z",
      bound: { limit: "time", attempts: 3, elapsedSeconds: 3600 },
    };
    const fields = eventFields(evidence, "provider 404");
    expect(fields.map((f) => [f.label, f.value])).toEqual([
      ["Result", "unresolved"],
      ["Next status check", "2026-12-05T01:13:15.000Z"],
      ["Limit reached", "limit: time; attempts: 3; seconds elapsed: 3,600"],
    ]);
    expect(fields.find((f) => f.key === "nextCheckAt")?.time).toBe(true);
    expect(JSON.stringify(fields)).not.toMatch(/actionId|fencingToken|0f5c2d0e/);
  });

  it("reads stored codes as words, and IDs as they are", () => {
    const fields = eventFields({ action: "resume_poll", providerJobId: "pred_abc", conclusive: false }, null);
    expect(fields.map((f) => f.value)).toEqual(["resume status checks", "pred_abc", "no"]);
  });

  it("names an unlisted key in words", () => {
    expect(fieldLabel("previousHolderCaseId")).toBe("Previous holder case ID");
    expect(fieldLabel("event_types")).toBe("Event types");
  });
});
