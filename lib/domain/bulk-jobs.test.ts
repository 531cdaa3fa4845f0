import { describe, expect, it } from "vitest";
import { BULK_JOB_STATE_WORDS, BULK_PACE_NAMES, BULK_PACE_WORDS, BULK_PACES, notDone } from "./bulk-jobs";

describe("bulk jobs in words and counts", () => {
  it("says every pace and state in words", () => {
    for (const pace of BULK_PACE_NAMES) {
      expect(BULK_PACE_WORDS[pace]).not.toContain("_");
      expect(BULK_PACES[pace].batchSize).toBeGreaterThan(0);
    }
    for (const words of Object.values(BULK_JOB_STATE_WORDS)) expect(words).not.toContain("_");
  });

  it("counts what a cancelled job never took", () => {
    expect(notDone({ planned: 5, done: 1, skipped: 1, failed: 0 })).toBe(3);
    expect(notDone({ planned: 2, done: 2, skipped: 0, failed: 0 })).toBe(0);
  });
});
