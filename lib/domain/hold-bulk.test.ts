import { describe, expect, it } from "vitest";
import { holdBulkRefusal } from "./hold-bulk";
import type { SendFacts } from "./send-outcome";

const resolved = (stage: "delivery" | "generation_failed" | "polling"): SendFacts => ({
  permit: null,
  case: { stage, state: "resolved", current: true },
});
const inFlight: SendFacts = {
  permit: { status: "live", parked: false },
  case: { stage: "generation_failed", state: "resolved", current: true },
};

describe("which holds a bulk settle or release decides (rules 7, 18)", () => {
  it("settles only completed jobs and releases only sends that bought nothing", () => {
    expect(holdBulkRefusal("settle", resolved("delivery"))).toBeNull();
    expect(holdBulkRefusal("settle", resolved("generation_failed"))?.code).toBe("nothing_completed");
    expect(holdBulkRefusal("release", resolved("generation_failed"))).toBeNull();
    expect(holdBulkRefusal("release", resolved("delivery"))?.code).toBe("send_completed");
  });

  it("decides neither while the provider may still complete the send", () => {
    for (const verb of ["settle", "release"] as const) {
      const why = holdBulkRefusal(verb, inFlight);
      expect(why?.code).toBe("send_outcome_unknown");
      expect(why?.message).toContain("rule 18");
    }
  });
});
