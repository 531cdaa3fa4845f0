import { describe, expect, it } from "vitest";
import { type JobMoveFacts, jobMoveRefusal } from "./job-move";

const names = { job: "job-1", target: "order-7-a1" };
const free: JobMoveFacts = {
  holderAttemptRef: "wrong",
  targetAttemptRef: "maker",
  targetJob: null,
  targetHasHold: true,
  boundTo: null,
  targetGaveUpJobBefore: false,
};
const codeOf = (facts: Partial<JobMoveFacts>) => jobMoveRefusal({ ...free, ...facts }, names)?.code ?? null;

describe("moving a job to the send that made it (decision 084)", () => {
  it("allows a job some other send records, to a job-less send that holds money", () => {
    expect(jobMoveRefusal(free, names)).toBeNull();
    expect(codeOf({ boundTo: "maker" })).toBeNull();
  });

  it("refuses what a move cannot mend", () => {
    expect(codeOf({ holderAttemptRef: null })).toBe("not_found");
    expect(codeOf({ holderAttemptRef: "maker" })).toBe("conflict");
    expect(codeOf({ boundTo: "wrong" })).toBe("conflict");
    expect(codeOf({ targetJob: "job-2" })).toBe("conflict");
    expect(codeOf({ targetHasHold: false })).toBe("invalid_request");
    expect(codeOf({ targetGaveUpJobBefore: true })).toBe("conflict");
  });

  it("says what to do instead", () => {
    expect(jobMoveRefusal({ ...free, holderAttemptRef: null }, names)?.message).toContain("attach it");
    expect(jobMoveRefusal({ ...free, targetJob: "job-2" }, names)?.message).toContain("job-2");
  });
});
