import { describe, expect, it } from "vitest";
import type { DownloadFailure, JobKind, JobStatus } from "./job-status";
import {
  type AnswerContext,
  completionEvidence,
  earlierChecksNeeded,
  meaningOf,
  meaningOfCopyFailure,
  unreadableCompletion,
  type Verdict,
  verdictBeforeAsking,
  verdictWhenCheckFailed,
} from "./provider-answer";
import { RECOVERY_ACTION_KINDS, type RecoveryActionKind, STAGES, type Stage } from "./stages";

const output = { url: "https://files.example/out.mp4", expiresAt: "2026-12-02T00:00:00.000Z" };
const claim = { actionId: "00000000-0000-4000-8000-000000000001", fencingToken: 3 };
const base: AnswerContext = { providerJobId: "job-1", checksSoFar: 4, claim };

type Row = { name: string; answer: JobStatus; context?: Partial<AnswerContext> };

/** Every kind of answer, and each variant the policy tells apart. */
const ANSWERS: Row[] = [
  { name: "running", answer: { kind: "running", providerStatus: "processing" } },
  {
    name: "completed with outputs",
    answer: { kind: "completed", providerStatus: "succeeded", outputs: [output], outputsRemoved: false },
  },
  {
    name: "completed, outputs removed",
    answer: { kind: "completed", providerStatus: "succeeded", outputs: [output], outputsRemoved: true },
  },
  {
    name: "completed without outputs",
    answer: { kind: "completed", providerStatus: "succeeded", outputs: [], outputsRemoved: false },
  },
  {
    name: "completed, but its answer holds no output this product can read",
    answer: {
      kind: "completed",
      providerStatus: "succeeded",
      outputs: [],
      outputsRemoved: false,
      evidence: { unreadableAnswer: { output: { seed: 42 } } },
    },
  },
  { name: "failed", answer: { kind: "failed", providerStatus: "failed", reason: "nsfw", canceled: false } },
  { name: "not found, first time", answer: { kind: "not_found", httpStatus: 404 } },
  {
    name: "not found, also on an earlier claim",
    answer: { kind: "not_found", httpStatus: 404 },
    context: { earlierChecks: [{ kind: "not_found", actionId: claim.actionId, fencingToken: 2 }] },
  },
  {
    name: "not found, earlier on this same claim",
    answer: { kind: "not_found", httpStatus: 404 },
    context: { earlierChecks: [{ kind: "not_found", ...claim }] },
  },
  {
    name: "not found, earlier check said something else",
    answer: { kind: "not_found", httpStatus: 404 },
    context: { earlierChecks: [{ kind: "unknown", actionId: claim.actionId, fencingToken: 2 }] },
  },
  { name: "unknown", answer: { kind: "unknown", reason: "timeout", attempts: 3 } },
  {
    name: "unknown, throttled",
    answer: { kind: "unknown", reason: "throttled", attempts: 1, httpStatus: 429, retryAfterMs: 90_000 },
  },
  {
    name: "unknown, result gone",
    answer: { kind: "unknown", reason: "result_unavailable", attempts: 1, httpStatus: 410 },
  },
];

// The table itself: the verdict for each answer in a status check (polling + resume_poll), in a
// delivery (either kind: a resume_poll that saw completion carries on as the copy), and where
// no policy applies (polling + retry_delivery, and the stages without a recovery action).
const EXPECTED: Record<string, { polling: Verdict["kind"]; delivery: Verdict["kind"] }> = {
  running: { polling: "keep_polling", delivery: "park" },
  "completed with outputs": { polling: "deliver", delivery: "deliver" },
  "completed, outputs removed": { polling: "outputs_unavailable", delivery: "outputs_unavailable" },
  "completed without outputs": { polling: "park", delivery: "park" },
  "completed, but its answer holds no output this product can read": { polling: "park", delivery: "park" },
  failed: { polling: "record_failed", delivery: "park" },
  "not found, first time": { polling: "park", delivery: "park" },
  "not found, also on an earlier claim": { polling: "park", delivery: "outputs_unavailable" },
  "not found, earlier on this same claim": { polling: "park", delivery: "park" },
  "not found, earlier check said something else": { polling: "park", delivery: "park" },
  unknown: { polling: "park", delivery: "park" },
  "unknown, throttled": { polling: "retry_later", delivery: "retry_later" },
  "unknown, result gone": { polling: "park", delivery: "outputs_unavailable" },
};

function expectedKind(stage: Stage, actionKind: RecoveryActionKind, row: Row): Verdict["kind"] {
  const expected = EXPECTED[row.name];
  if (!expected) throw new Error(`no expectation for ${row.name}`);
  if (stage === "delivery") return expected.delivery;
  if (stage === "polling" && actionKind === "resume_poll") return expected.polling;
  return "park";
}

const cells = STAGES.flatMap((stage) =>
  RECOVERY_ACTION_KINDS.flatMap((actionKind) => ANSWERS.map((row) => ({ stage, actionKind, row }))),
);

describe("what a provider's answer means", () => {
  it("covers every kind of answer", () => {
    const kinds: Record<JobKind, true> = {
      running: true,
      completed: true,
      failed: true,
      not_found: true,
      unknown: true,
    };
    expect(new Set(ANSWERS.map((row) => row.answer.kind))).toEqual(new Set(Object.keys(kinds)));
    expect(Object.keys(EXPECTED).sort()).toEqual(ANSWERS.map((row) => row.name).sort());
    expect(cells).toHaveLength(STAGES.length * RECOVERY_ACTION_KINDS.length * ANSWERS.length);
  });

  it.each(cells.map((cell) => [cell.stage, cell.actionKind, cell.row.name, cell] as const))(
    "%s + %s + %s",
    (stage, actionKind, _name, { row }) => {
      const verdict = meaningOf(stage, actionKind, row.answer, { ...base, ...row.context });
      expect(verdict.kind).toBe(expectedKind(stage, actionKind, row));
    },
  );

  it("never reads a transport error, throttling or a missing job as a failure", () => {
    for (const { stage, actionKind, row } of cells) {
      if (row.answer.kind === "failed") continue;
      expect(meaningOf(stage, actionKind, row.answer, { ...base, ...row.context }).kind).not.toBe("record_failed");
    }
  });

  it("keeps the evidence texts the timeline has always shown", () => {
    const at = (name: string, stage: Stage = "polling", actionKind: RecoveryActionKind = "resume_poll") => {
      const row = ANSWERS.find((r) => r.name === name) as Row;
      return meaningOf(stage, actionKind, row.answer, { ...base, ...row.context });
    };
    expect(at("running")).toEqual({
      kind: "keep_polling",
      evidence: "provider status processing: still running",
      checks: 5,
    });
    expect(at("running", "delivery", "retry_delivery")).toEqual({
      kind: "park",
      evidence: "the job is running again; delivery cannot start",
    });
    expect(at("completed with outputs")).toEqual({ kind: "deliver", outputs: [output] });
    expect(at("completed, outputs removed")).toEqual({
      kind: "outputs_unavailable",
      evidence: "provider status succeeded: the outputs were removed (retention passed)",
    });
    expect(at("completed without outputs")).toEqual({
      kind: "park",
      evidence:
        "the provider reports the job completed (succeeded), but its answer holds no output this product can read: the charge stands, and a person decides whether to retry the delivery or mark the outputs unavailable",
    });
    expect(at("failed")).toEqual({
      kind: "record_failed",
      stage: "generation_failed",
      evidence: "the generation failed: nsfw",
    });
    expect(at("failed", "delivery", "retry_delivery")).toEqual({
      kind: "park",
      evidence: "the generation failed: nsfw",
    });
    expect(at("not found, first time", "delivery", "retry_delivery")).toEqual({
      kind: "park",
      evidence: "the provider does not know job job-1 (HTTP 404)",
    });
    expect(at("not found, also on an earlier claim", "delivery", "retry_delivery")).toEqual({
      kind: "outputs_unavailable",
      evidence: "the provider did not know job job-1 on two separate checks (HTTP 404): there is nothing to copy",
    });
    expect(at("unknown")).toEqual({ kind: "park", evidence: "status unknown after 3 attempts: timeout" });
    expect(at("unknown, throttled")).toEqual({
      kind: "retry_later",
      evidence: "provider throttled the check (throttled)",
      afterMs: 90_000,
    });
    expect(at("unknown, throttled", "delivery", "retry_delivery")).toEqual({
      kind: "retry_later",
      evidence: "provider throttled the check (throttled)",
      afterMs: 90_000,
    });
    expect(at("unknown, result gone", "delivery", "resume_poll")).toEqual({
      kind: "outputs_unavailable",
      evidence: "the provider no longer has the job's result (HTTP 410)",
    });
  });

  it("counts a not-found from a check without a claim (a webhook) as another claim, as the log always did", () => {
    const verdict = meaningOf(
      "delivery",
      "retry_delivery",
      { kind: "not_found", httpStatus: 404 },
      { ...base, earlierChecks: [{ kind: "not_found", actionId: null, fencingToken: null }] },
    );
    expect(verdict.kind).toBe("outputs_unavailable");
  });

  it("a throttle without a usable delay parks instead of spinning", () => {
    const verdict = meaningOf(
      "polling",
      "resume_poll",
      { kind: "unknown", reason: "throttled", attempts: 1, retryAfterMs: 0 },
      base,
    );
    expect(verdict).toEqual({ kind: "park", evidence: "status unknown after 1 attempts: throttled" });
  });
});

describe("a completion whose answer holds no output this product can read", () => {
  const unreadable = ANSWERS.find((r) => r.name.startsWith("completed, but"))?.answer as Extract<
    JobStatus,
    { kind: "completed" }
  >;

  it.each([
    ["polling", "resume_poll"],
    ["delivery", "retry_delivery"],
    ["delivery", "resume_poll"],
  ] as const)(
    "%s + %s parks for a person, saying so and where the answer is kept, never delivering nothing",
    (stage, action) => {
      expect(meaningOf(stage, action, unreadable, base)).toEqual({
        kind: "park",
        evidence:
          "the provider reports the job completed (succeeded), but its answer holds no output this product can read; its answer is kept on the observation: the charge stands, and a person decides whether to retry the delivery or mark the outputs unavailable",
      });
    },
  );

  it("records the move to delivery (and the settlement, rule 18) in the same words, not as a plain completion", () => {
    expect(completionEvidence(unreadable)).toBe(unreadableCompletion(unreadable));
    const readable = ANSWERS.find((r) => r.name === "completed with outputs")?.answer as typeof unreadable;
    expect(completionEvidence(readable)).toBe("provider reports succeeded");
    const removed = ANSWERS.find((r) => r.name === "completed, outputs removed")?.answer as typeof unreadable;
    expect(completionEvidence(removed)).toBe("provider reports succeeded");
  });
});

describe("the earlier checks are read only where they matter", () => {
  it.each(cells.map((cell) => [cell.stage, cell.actionKind, cell.row.name, cell] as const))(
    "%s + %s + %s",
    (stage, actionKind, _name, { row }) => {
      const needed = earlierChecksNeeded(stage, actionKind, row.answer);
      expect(needed).toBe(stage === "delivery" && row.answer.kind === "not_found");
    },
  );
});

describe("verdicts reached without an answer", () => {
  const ready = { provider: "replicate", providerConfigured: true, providerJobId: "job-1" };

  it.each(STAGES.flatMap((stage) => RECOVERY_ACTION_KINDS.map((actionKind) => [stage, actionKind] as const)))(
    "%s + %s: asks only where a policy applies",
    (stage, actionKind) => {
      const runnable = stage === "delivery" || (stage === "polling" && actionKind === "resume_poll");
      const verdict = verdictBeforeAsking(stage, actionKind, ready);
      if (runnable) expect(verdict).toBeNull();
      else
        expect(verdict).toEqual({
          kind: "park",
          evidence: `a ${actionKind} action cannot run on a ${stage} case: the job was not checked`,
        });
    },
  );

  it("parks a case whose provider has no key, or that has no job to check", () => {
    expect(
      verdictBeforeAsking("polling", "resume_poll", { ...ready, provider: "fal", providerConfigured: false }),
    ).toEqual({
      kind: "park",
      evidence:
        'provider "fal" is not configured in this deployment (no API key in live mode): the job was not checked',
    });
    expect(verdictBeforeAsking("delivery", "retry_delivery", { ...ready, providerJobId: null })).toEqual({
      kind: "park",
      evidence: "the case has no provider job ID to check",
    });
    expect(verdictWhenCheckFailed("bad model id")).toEqual({
      kind: "park",
      evidence: "the status check could not be made: bad model id",
    });
  });
});

describe("what a failed copy means", () => {
  const FAILURES: Record<DownloadFailure, Verdict["kind"]> = {
    not_available: "outputs_unavailable",
    host_not_allowed: "park",
    http_error: "park",
    too_large: "park",
    truncated: "park",
    size_mismatch: "park",
    checksum_mismatch: "park",
    timeout: "park",
    transport_error: "park",
    sink_error: "park",
    malformed_inline: "park",
  };

  it.each(Object.entries(FAILURES))("%s -> %s", (reason, kind) => {
    const verdict = meaningOfCopyFailure(1, { reason: reason as DownloadFailure, detail: "HTTP 404" });
    expect(verdict).toEqual({
      kind,
      evidence: `copying output 1 failed: ${reason} (HTTP 404); nothing was published`,
    });
  });
});
