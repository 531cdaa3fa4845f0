import { describe, expect, it } from "vitest";
import { describeFigures } from "./alert-messages";
import {
  type CandidateOperation,
  JOB_SWEEP_LOOKBACK_MS,
  MAX_CANDIDATES,
  rankCandidates,
  sweepWindow,
  sweptModels,
} from "./unexplained-charges";

const at = new Date("2026-12-01T10:00:00Z");
const candidate = (over: Partial<CandidateOperation>): CandidateOperation => ({
  caseId: "c",
  attemptId: "a1",
  stage: "submission_uncertain",
  state: "parked",
  uncertain: true,
  operationId: "op",
  producer: "shop",
  model: "m1",
  fingerprint: "sha256:a",
  submittedAt: at,
  openedAt: at,
  ...over,
});

describe("rankCandidates", () => {
  it("puts the request's fingerprint first, then the model, then the closest in time; drops time-only matches", () => {
    const ranked = rankCandidates({ model: "m1", at, fingerprint: "sha256:a" }, [
      candidate({ caseId: "model-far", fingerprint: "sha256:b", submittedAt: new Date(at.getTime() + 3_600_000) }),
      candidate({ caseId: "model-near", fingerprint: "sha256:b", submittedAt: new Date(at.getTime() + 120_000) }),
      candidate({ caseId: "exact" }),
      candidate({ caseId: "time-only", model: "m2", fingerprint: "sha256:c" }),
    ]);
    expect(ranked.map((r) => r.caseId)).toEqual(["exact", "model-near", "model-far"]);
    expect(ranked[0]).toMatchObject({ matched: ["fingerprint", "model", "submitted_within_60s"], confidence: 100 });
  });

  it("without the job's request, ranks by model and time only, and keeps the best few", () => {
    const many = Array.from({ length: 6 }, (_, i) =>
      candidate({ caseId: `c${i}`, submittedAt: new Date(at.getTime() + i * 1_000) }),
    );
    const ranked = rankCandidates({ model: "m1", at, fingerprint: null }, many);
    expect(ranked).toHaveLength(MAX_CANDIDATES);
    expect(ranked.map((r) => r.caseId)).toEqual(["c0", "c1", "c2"]);
  });
});

describe("sweepWindow", () => {
  it("reads more than a day back and a little past now, so a job created as it starts is listed", () => {
    const window = sweepWindow(at);
    expect(at.getTime() - window.from.getTime()).toBe(JOB_SWEEP_LOOKBACK_MS);
    expect(window.to.getTime()).toBeGreaterThan(at.getTime());
  });
});

describe("sweptModels", () => {
  it("asks once without a model, or once per known model where the list needs one", () => {
    expect(sweptModels(false, ["a"])).toEqual([undefined]);
    expect(sweptModels(true, ["b", "a", "b", " "])).toEqual(["a", "b"]);
  });
});

describe("the alert's words", () => {
  it("say the unexplained money was charged, not held", () => {
    const text = describeFigures(
      "unexplained_charges",
      { count: 2, held: [{ currency: "USD", micros: "420000" }] },
      new Date("2026-12-01T10:00:00Z"),
    );
    expect(text).toMatch(/^2 provider charges or listed jobs that no operation owns/);
    expect(text).toMatch(/; charged .*0\.42/);
  });
});
