import { describe, expect, it } from "vitest";
import {
  checkSendDeadline,
  decideOutcome,
  decidePermitRequest,
  type OperationSeen,
  type OutcomeReport,
  PERMIT_STATUSES,
  type PermitFacts,
  type PermitStatus,
  type StoredPermit,
  withinWindow,
} from "./send-permits";

const facts: PermitFacts = {
  attemptId: "a1",
  fingerprint: `sha256:${"a".repeat(64)}`,
  provider: "replicate",
  model: "omni",
  holdId: "h1",
  amountMicros: 100_000n,
  currency: "USD",
};

const stored = (status: PermitStatus, extra: Partial<StoredPermit> = {}): StoredPermit => ({
  ...facts,
  status,
  token: 1,
  providerJobId: status === "accepted" || status === "completed" ? "job-1" : null,
  caseId: status === "uncertain" || status === "failed" ? "case-1" : null,
  caseState: status === "uncertain" || status === "failed" ? "parked" : null,
  ...extra,
});

const seen = (latest: StoredPermit | null, extra: Partial<OperationSeen> = {}): OperationSeen => ({
  fingerprint: facts.fingerprint,
  provider: facts.provider,
  model: facts.model,
  latest,
  caseWithoutPermit: null,
  ...extra,
});

describe("asking for a permit", () => {
  const table: [string, OperationSeen | null, PermitFacts, string][] = [
    ["a new operation", null, facts, "issue 1"],
    ["the identical request while live", seen(stored("live")), facts, "same 1"],
    ["another attempt while live", seen(stored("live")), { ...facts, attemptId: "a2" }, "conflicting_registration"],
    ["another amount while live", seen(stored("live")), { ...facts, amountMicros: 1n }, "conflicting_registration"],
    ["after acceptance", seen(stored("accepted")), facts, "in_flight job-1"],
    ["after acceptance, another attempt", seen(stored("accepted")), { ...facts, attemptId: "a2" }, "in_flight job-1"],
    ["after parking", seen(stored("uncertain")), facts, "uncertain case-1"],
    ["after completion", seen(stored("completed")), facts, "done"],
    ["after a failure", seen(stored("failed")), facts, "done"],
    ["after its case resolved", seen(stored("uncertain", { caseState: "resolved" })), facts, "done"],
    ["a withdrawn replacement's void permit", seen(stored("withdrawn")), facts, "done"],
    [
      "an attempt a replacement replaced, while the replacement's permit is live",
      seen(stored("live", { attemptId: "a1-replacement-1" }), { replaced: { caseId: "case-1" } }),
      facts,
      "done",
    ],
    ["after a refusal, a new attempt", seen(stored("rejected")), { ...facts, attemptId: "a2" }, "issue 2"],
    ["after a refusal, the refused attempt", seen(stored("rejected")), facts, "conflicting_registration"],
    ["another fingerprint", seen(null, { fingerprint: "sha256:x" }), facts, "conflicting_registration"],
    [
      "a case parked without a permit",
      seen(null, { caseWithoutPermit: { caseId: "c", state: "parked" } }),
      facts,
      "uncertain c",
    ],
    [
      "a resolved case without a permit",
      seen(null, { caseWithoutPermit: { caseId: "c", state: "resolved" } }),
      facts,
      "done",
    ],
  ];
  it.each(table)("%s", (_name, operation, asked, expected) => {
    const verdict = decidePermitRequest(operation, asked);
    if (!verdict.ok) return expect(verdict.error.code).toBe(expected);
    const a = verdict.value;
    const text =
      a.kind === "issue" || a.kind === "same"
        ? `${a.kind} ${a.token}`
        : a.kind === "in_flight"
          ? `in_flight ${a.providerJobId}`
          : a.kind === "uncertain"
            ? `uncertain ${a.caseId}`
            : "done";
    expect(text).toBe(expected);
  });

  it("takes a deadline in the future within a day", () => {
    const now = new Date("2026-12-02T10:00:00Z");
    expect(checkSendDeadline(new Date("2026-12-02T10:00:01Z"), now).ok).toBe(true);
    expect(checkSendDeadline(now, now).ok).toBe(false);
    expect(checkSendDeadline(new Date("2026-12-03T10:00:01Z"), now).ok).toBe(false);
    // A repeat is checked against the window only: its permit's deadline may have passed since.
    expect(withinWindow(new Date("2026-12-02T09:00:00Z"), now).ok).toBe(true);
    expect(withinWindow(new Date("2026-12-03T10:00:01Z"), now).ok).toBe(false);
  });
});

describe("reporting an outcome", () => {
  const reports: Record<string, OutcomeReport> = {
    accepted: { kind: "accepted", providerJobId: "job-1" },
    acceptedOther: { kind: "accepted", providerJobId: "job-2" },
    rejected: { kind: "rejected" },
    unknown: { kind: "unknown" },
    completed: { kind: "completed", providerJobId: null },
    completedJob: { kind: "completed", providerJobId: "job-1" },
    failed: { kind: "failed", providerJobId: null },
    failedJob: { kind: "failed", providerJobId: "job-1" },
  };
  const permit = (status: PermitStatus) => ({ ...stored(status), caseRef: stored(status).caseId, latestToken: 1 });
  const parkedAccepted = { ...permit("accepted"), caseRef: "case-1" };
  const table: [PermitStatus, keyof typeof reports, string][] = [
    ["live", "accepted", "record_job accepted"],
    ["live", "rejected", "close_rejected rejected"],
    ["live", "unknown", "park uncertain submission_uncertain"],
    ["live", "completed", "provider_job_id_required"],
    ["live", "completedJob", "settle completed"],
    ["live", "failed", "provider_job_id_required"],
    ["live", "failedJob", "park failed generation_failed"],
    ["accepted", "accepted", "repeat"],
    ["accepted", "acceptedOther", "conflicting_registration"],
    ["accepted", "completed", "settle completed"],
    ["accepted", "failed", "park failed generation_failed"],
    ["accepted", "unknown", "park accepted polling"],
    ["accepted", "rejected", "illegal_transition"],
    ["uncertain", "unknown", "repeat"],
    ["uncertain", "accepted", "attach"],
    ["uncertain", "rejected", "illegal_transition"],
    ["rejected", "rejected", "repeat"],
    ["rejected", "accepted", "illegal_transition"],
    ["completed", "completed", "repeat"],
    ["completed", "unknown", "repeat"],
    ["completed", "accepted", "repeat"],
    ["failed", "accepted", "repeat"],
    ["failed", "unknown", "repeat"],
    ["completed", "failedJob", "illegal_transition"],
    ["failed", "failed", "repeat"],
    ["failed", "completedJob", "illegal_transition"],
  ];
  it.each(table)("%s + %s -> %s", (status, report, expected) => {
    const verdict = decideOutcome(permit(status), 1, reports[report] as OutcomeReport);
    if (!verdict.ok) return expect(verdict.error.code).toBe(expected);
    const e = verdict.value;
    const text = e.kind === "park" ? `park ${e.next} ${e.stage}` : "next" in e ? `${e.kind} ${e.next}` : e.kind;
    expect(text).toBe(expected);
  });

  it.each([
    ["unknown", "repeat"],
    ["accepted", "repeat"],
    ["completedJob", "repeat"],
    ["failedJob", "repeat"],
    ["rejected", "illegal_transition"],
  ] as const)("an accepted send already parked as a job to check + %s -> %s (its case decides)", (report, expected) => {
    const verdict = decideOutcome(parkedAccepted, 1, reports[report] as OutcomeReport);
    expect(verdict.ok ? verdict.value.kind : verdict.error.code).toBe(expected);
  });

  it("refuses a stale token, and any report on a superseded permit", () => {
    for (const status of PERMIT_STATUSES) {
      expect(decideOutcome(permit(status), 2, reports.unknown as OutcomeReport)).toMatchObject({
        ok: false,
        error: { code: "stale_fencing_token" },
      });
      expect(decideOutcome({ ...permit(status), latestToken: 2 }, 1, reports.rejected as OutcomeReport)).toMatchObject({
        ok: false,
        error: { code: "stale_fencing_token" },
      });
    }
  });
});
