import { describe, expect, it } from "vitest";
import { requestFingerprint } from "./fingerprint";
import {
  isStrongMatch,
  MATCH_WEIGHTS,
  type ScorableJob,
  type SuggestionTarget,
  scoreListedJob,
} from "./reconciliation-score";

const request = { prompt: "a red kite over the sea", seconds: 5 };
const submittedAt = new Date("2026-12-01T10:00:00.000Z");
const target: SuggestionTarget = { model: "video-1", fingerprint: requestFingerprint(request), submittedAt };
const at = (offsetMs: number) => new Date(submittedAt.getTime() + offsetMs).toISOString();

describe("reconciliation scoring", () => {
  it("weighs the attributes: reference 70, fingerprint 60, model 25, same minute 15", () => {
    expect(MATCH_WEIGHTS).toEqual({ client_reference: 70, fingerprint: 60, model: 25, submitted_within_60s: 15 });
  });

  const cases: [string, ScorableJob, boolean, ReturnType<typeof scoreListedJob>][] = [
    [
      "everything agrees (capped at 100)",
      { model: "video-1", createdAt: at(5_000), input: request },
      true,
      { matched: ["client_reference", "fingerprint", "model", "submitted_within_60s"], confidence: 100 },
    ],
    [
      "request, model and minute",
      { model: "video-1", createdAt: at(-30_000), input: request },
      false,
      { matched: ["fingerprint", "model", "submitted_within_60s"], confidence: 100 },
    ],
    ["request only", { createdAt: at(3_600_000), input: request }, false, { matched: ["fingerprint"], confidence: 60 }],
    [
      "model and minute",
      { model: "video-1", createdAt: at(60_000), input: { prompt: "other" } },
      false,
      { matched: ["model", "submitted_within_60s"], confidence: 40 },
    ],
    [
      "model only, a minute and a bit later",
      { model: "video-1", createdAt: at(60_001) },
      false,
      { matched: ["model"], confidence: 25 },
    ],
    ["reference only", { createdAt: "not a date" }, true, { matched: ["client_reference"], confidence: 70 }],
    ["the same minute alone is no candidate", { model: "video-2", createdAt: at(1_000) }, false, null],
    [
      "an input that cannot be fingerprinted matches nothing",
      { createdAt: at(0), input: { n: Number.NaN } },
      false,
      null,
    ],
  ];

  it.each(cases)("%s", (_name, job, viaReference, expected) => {
    expect(scoreListedJob(job, target, viaReference)).toEqual(expected);
  });

  it("without a submission time, time never matches", () => {
    expect(scoreListedJob({ model: "video-1", createdAt: at(0) }, { ...target, submittedAt: null })).toEqual({
      matched: ["model"],
      confidence: 25,
    });
  });

  it("calls a match strong only on the reference or the request", () => {
    expect(isStrongMatch({ matched: ["client_reference"], confidence: 70 })).toBe(true);
    expect(isStrongMatch({ matched: ["fingerprint"], confidence: 60 })).toBe(true);
    expect(isStrongMatch({ matched: ["model", "submitted_within_60s"], confidence: 40 })).toBe(false);
  });
});
