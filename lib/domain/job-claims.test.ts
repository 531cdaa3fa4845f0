import { describe, expect, it } from "vitest";
import {
  CLOCK_SKEW_MS,
  type ClaimantFacts,
  type HolderFacts,
  judgeClaim,
  judgeReference,
  type ProviderFacts,
  refutedBy,
} from "./job-claims";

const issued = new Date("2026-12-05T10:00:00Z");
const deadline = new Date("2026-12-05T10:10:00Z");
const a: ClaimantFacts = {
  attemptRef: "attempt-a",
  fingerprint: "sha256:aaa",
  model: "minimax/video-01",
  window: { from: issued, to: deadline },
};
const b: ClaimantFacts = { ...a, attemptRef: "attempt-b", fingerprint: "sha256:bbb" };
const holderB: HolderFacts = { ...b, committed: null };
const settledB: HolderFacts = { ...b, committed: "its hold was settled on this job" };

const factsOfA: ProviderFacts = { fingerprint: "sha256:aaa", model: "minimax/video-01", createdAt: issued };
const none: ProviderFacts = {};

describe("what the provider's facts contradict", () => {
  const table: [string, ProviderFacts, ClaimantFacts, boolean][] = [
    ["no facts", none, a, false],
    ["its own request", factsOfA, a, false],
    ["another request", factsOfA, b, true],
    ["another model", { model: "kwaivgi/kling-v2.1" }, a, true],
    ["the same model with a version", { model: "minimax/video-01:abc" }, a, false],
    ["a bare version hash", { model: "f".repeat(64) }, a, false],
    ["created just before the permit, within the skew", { createdAt: new Date(issued.getTime() - 60_000) }, a, false],
    ["created long before the permit", { createdAt: new Date(issued.getTime() - CLOCK_SKEW_MS - 1) }, a, true],
    [
      "created after the deadline (a create in flight)",
      { createdAt: new Date(deadline.getTime() + CLOCK_SKEW_MS + 1) },
      a,
      false,
    ],
    ["a time, and no permit window", { createdAt: new Date(0) }, { ...a, window: null }, false],
  ];
  it.each(table)("%s", (_, facts, claimant, refuted) => {
    expect(refutedBy(facts, claimant) !== null).toBe(refuted);
  });
});

describe("a signed reference on a job", () => {
  const base = {
    referenced: a,
    jobBoundTo: null,
    referenceBoundTo: null,
    providerJobId: "job-x",
    signedRefMatches: null,
    facts: factsOfA,
  };
  const table: [string, Partial<Parameters<typeof judgeReference>[0]>, string][] = [
    ["first seen: fixes the pair", {}, "bind"],
    ["seen before on the same job", { jobBoundTo: "attempt-a", referenceBoundTo: "job-x" }, "bound"],
    ["the job carried another reference first", { jobBoundTo: "attempt-b" }, "transplant"],
    ["the reference was first shown on another job", { referenceBoundTo: "job-y" }, "transplant"],
    ["the signed body echoes another reference", { signedRefMatches: false }, "transplant"],
    ["the signed body echoes this one", { signedRefMatches: true }, "bind"],
    ["the provider's copy is another request", { referenced: b }, "transplant"],
  ];
  it.each(table)("%s: %s", (_, change, kind) => {
    expect(judgeReference({ ...base, ...change }).kind).toBe(kind);
  });
});

describe("who may record a job (rule 17)", () => {
  const base = { door: "report" as const, claimant: a, holder: null, boundTo: null, facts: none };
  const table: [string, Partial<Parameters<typeof judgeClaim>[0]>, string][] = [
    ["nobody holds it, no evidence", {}, "take"],
    ["the claimant holds it already", { holder: { ...a, committed: null } }, "keep"],
    ["nobody holds it, the reference names another send", { boundTo: "attempt-b" }, "refuse"],
    ["nobody holds it, the provider's copy is another request", { facts: { fingerprint: "sha256:bbb" } }, "refuse"],
    ["a bare claim holds it, the evidence names neither", { holder: holderB }, "refuse"],
    [
      "a bare claim holds it, either order: the reference proves the claimant",
      { holder: holderB, boundTo: "attempt-a" },
      "take_from_holder",
    ],
    [
      "a bare claim holds it, the provider's copy is the claimant's request",
      { holder: holderB, facts: factsOfA },
      "take_from_holder",
    ],
    ["the holder's claim already settled its hold", { holder: settledB, boundTo: "attempt-a" }, "contest"],
    ["the reference proves the holder", { holder: holderB, boundTo: "attempt-b" }, "refuse"],
    [
      "the claimant's request is not the provider's copy, nor the holder's",
      { holder: holderB, facts: { fingerprint: "sha256:ccc" } },
      "refuse",
    ],
  ];
  it.each(table)("%s: %s", (_, change, kind) => {
    expect(judgeClaim({ ...base, ...change }).kind).toBe(kind);
  });

  it("the order of two claims never decides against the evidence", () => {
    // B held first, A proves it: A takes it. A held first, B claims: B is refused. One owner, A.
    expect(judgeClaim({ ...base, claimant: a, holder: holderB, boundTo: "attempt-a" }).kind).toBe("take_from_holder");
    expect(judgeClaim({ ...base, claimant: b, holder: { ...a, committed: null }, boundTo: "attempt-a" }).kind).toBe(
      "refuse",
    );
    for (const door of ["report", "park", "attach", "reference"] as const) {
      expect(judgeClaim({ ...base, door, claimant: b, holder: null, boundTo: "attempt-a" }).kind).toBe("refuse");
    }
  });
});
