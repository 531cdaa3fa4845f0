import { describe, expect, it } from "vitest";
import { AUDIT_KINDS, type CaseCommand, type CaseSnapshot } from "./case-commands";
import { CASE_STATES, STAGES, type Stage } from "./stages";
import { canBeClaimed, decide, isOpen, isTerminal } from "./transitions";

const parked = (stage: Stage, providerJobId: string | null = "job-1"): CaseSnapshot => ({
  stage,
  state: "parked",
  providerJobId,
});

function codeOf(from: CaseSnapshot, command: CaseCommand): string {
  const decision = decide(from, command);
  return decision.ok ? "ok" : decision.error.code;
}

describe("evidence", () => {
  const blank = ["", "   ", "\n\t"];
  const withEvidence: Array<[CaseSnapshot, (evidence: string) => CaseCommand]> = [
    [parked("submission_uncertain", null), (evidence) => ({ type: "reconcile_attach", providerJobId: "j", evidence })],
    [parked("submission_uncertain", null), (evidence) => ({ type: "reconcile_no_job", evidence })],
    [parked("polling"), (evidence) => ({ type: "approve", action: "resume_poll", evidence })],
    [parked("polling"), (evidence) => ({ type: "reject", evidence })],
    [parked("polling"), (evidence) => ({ type: "escalate", evidence })],
    [parked("generation_failed", null), (evidence) => ({ type: "accept_failure", evidence })],
    [
      { stage: "polling", state: "claimed", providerJobId: "j" },
      (evidence) => ({ type: "finish_unresolved", evidence }),
    ],
    [
      { stage: "polling", state: "claimed", providerJobId: "j" },
      (evidence) => ({ type: "move_stage", stage: "delivery", evidence }),
    ],
    [{ stage: "polling", state: "claimed", providerJobId: "j" }, (evidence) => ({ type: "reschedule", evidence })],
    [parked("generation_failed", null), (evidence) => ({ type: "request_replacement", evidence })],
    [parked("generation_failed", null), (evidence) => ({ type: "close_for_replacement", evidence })],
    [parked("generation_failed", null), (evidence) => ({ type: "return_to_reconciliation", evidence })],
    [parked("polling"), (text) => ({ type: "add_note", text })],
  ];
  for (const [from, make] of withEvidence) {
    const type = make("x").type;
    it(`${type} refuses blank evidence but accepts real evidence`, () => {
      for (const text of blank) expect(codeOf(from, make(text))).toBe("evidence_required");
      expect(codeOf(from, make("seen in the provider dashboard"))).toBe("ok");
    });
  }

  it("treats non-text evidence from untyped input as missing", () => {
    const command = { type: "reject", evidence: 42 } as unknown as CaseCommand;
    expect(codeOf(parked("polling"), command)).toBe("evidence_required");
  });
});

describe("approve", () => {
  const refusedActions = ["submit_again", "create", "replace", "", "RESUME_POLL", "resume_poll ", "__proto__"];
  for (const stage of STAGES) {
    it(`never approves a paid create or unknown action in ${stage}`, () => {
      for (const action of refusedActions) {
        const expected =
          stage === "submission_uncertain" ? "reconciliation_required" : "action_not_permitted_for_stage";
        expect(codeOf(parked(stage), { type: "approve", action, evidence: "why" })).toBe(expected);
      }
    });
  }

  it("refuses the other stage's action", () => {
    expect(codeOf(parked("polling"), { type: "approve", action: "retry_delivery", evidence: "e" })).toBe(
      "action_not_permitted_for_stage",
    );
    expect(codeOf(parked("delivery"), { type: "approve", action: "resume_poll", evidence: "e" })).toBe(
      "action_not_permitted_for_stage",
    );
  });

  it("refuses a second approval once the action exists", () => {
    const first = decide(parked("delivery"), { type: "approve", action: "retry_delivery", evidence: "e" });
    if (!first.ok) throw first.error;
    expect(codeOf(first.next, { type: "approve", action: "retry_delivery", evidence: "again" })).toBe(
      "illegal_transition",
    );
  });
});

describe("move_stage from a claimed case", () => {
  // rows: from; columns: to (submission_uncertain, polling, delivery, generation_failed)
  const EXPECTED: Record<Stage, readonly [string, string, string, string]> = {
    submission_uncertain: ["illegal_transition", "illegal_transition", "illegal_transition", "illegal_transition"],
    polling: ["illegal_transition", "illegal_transition", "completion_observed", "generation_failure_observed"],
    delivery: ["illegal_transition", "illegal_transition", "illegal_transition", "illegal_transition"],
    generation_failed: ["illegal_transition", "illegal_transition", "illegal_transition", "illegal_transition"],
  };
  for (const fromStage of STAGES) {
    STAGES.forEach((toStage, column) => {
      it(`${fromStage} -> ${toStage}`, () => {
        const decision = decide(
          { stage: fromStage, state: "claimed", providerJobId: "job-1" },
          { type: "move_stage", stage: toStage, evidence: "observed" },
        );
        const expected = EXPECTED[fromStage][column];
        if (decision.ok) {
          expect(decision.auditKind).toBe(expected);
          // Completion keeps the claim for delivery; a failure parks for review.
          const state = toStage === "delivery" ? "claimed" : "parked";
          expect(decision.next).toEqual({ stage: toStage, state, providerJobId: "job-1" });
        } else {
          expect(decision.error.code).toBe(expected);
        }
      });
    });
  }
});

describe("reschedule", () => {
  const claimed = (stage: Stage): CaseSnapshot => ({ stage, state: "claimed", providerJobId: "job-1" });
  const still: CaseCommand = { type: "reschedule", evidence: "provider: still running" };

  it("hands a running status check back to ready without resolving anything", () => {
    const decision = decide(claimed("polling"), still);
    expect(decision.ok && decision.auditKind).toBe("check_rescheduled");
    expect(decision.ok && decision.next).toEqual({ stage: "polling", state: "ready", providerJobId: "job-1" });
    expect(decision.ok && canBeClaimed(decision.next)).toBe(true);
  });

  it("refuses a case no worker holds", () => {
    for (const state of CASE_STATES.filter((s) => s !== "claimed")) {
      expect(codeOf({ stage: "polling", state, providerJobId: "job-1" }, still)).toBe("illegal_transition");
    }
  });

  it("hands a delivery whose status read was throttled back to ready", () => {
    const decision = decide(claimed("delivery"), { type: "reschedule", evidence: "provider throttled the check" });
    expect(decision.ok && decision.next).toEqual({ stage: "delivery", state: "ready", providerJobId: "job-1" });
  });

  it("refuses a claimed case outside polling and delivery", () => {
    for (const stage of STAGES.filter((s) => s !== "polling" && s !== "delivery")) {
      expect(codeOf(claimed(stage), still)).toBe("action_not_permitted_for_stage");
    }
  });
});

describe("release_claim", () => {
  it("hands the action back like a lease rescue, under its own audit kind", () => {
    for (const stage of STAGES) {
      const from: CaseSnapshot = { stage, state: "claimed", providerJobId: "job-1" };
      const released = decide(from, { type: "release_claim" });
      const rescued = decide(from, { type: "rescue_lease" });
      expect(released.ok ? released.next : released.error.code).toEqual(rescued.ok ? rescued.next : rescued.error.code);
      if (released.ok) expect(released.auditKind).toBe("claim_released");
    }
  });
});

describe("reopen", () => {
  const resolved = (stage: Stage): CaseSnapshot => ({ stage, state: "resolved", providerJobId: "old" });
  // columns: providerJobId null, "job-2", "  "
  const EXPECTED: Record<Stage, readonly [string, string, string]> = {
    submission_uncertain: ["ok", "invalid_input", "invalid_input"],
    polling: ["provider_job_id_required", "ok", "provider_job_id_required"],
    delivery: ["provider_job_id_required", "ok", "provider_job_id_required"],
    generation_failed: ["ok", "ok", "ok"],
  };
  for (const stage of STAGES) {
    const ids = [null, "job-2", "  "] as const;
    ids.forEach((providerJobId, column) => {
      it(`to ${stage} with job ${JSON.stringify(providerJobId)}`, () => {
        const decision = decide(resolved("delivery"), { type: "reopen", stage, providerJobId });
        expect(decision.ok ? "ok" : decision.error.code).toBe(EXPECTED[stage][column]);
        if (decision.ok) expect(decision.next).toEqual({ stage, state: "parked", providerJobId });
      });
    });
  }
});

describe("other input checks", () => {
  it("attach needs a job ID", () => {
    for (const providerJobId of ["", "  "]) {
      expect(
        codeOf(parked("submission_uncertain", null), { type: "reconcile_attach", providerJobId, evidence: "e" }),
      ).toBe("provider_job_id_required");
    }
  });

  it("assign accepts a user or null, not a blank", () => {
    expect(codeOf(parked("polling"), { type: "assign", assigneeId: null })).toBe("ok");
    expect(codeOf(parked("polling"), { type: "assign", assigneeId: " " })).toBe("invalid_input");
  });

  it("refuses an unknown command instead of ignoring it", () => {
    expect(codeOf(parked("polling"), { type: "submit_again" } as unknown as CaseCommand)).toBe("illegal_transition");
  });

  it("reports audit kinds from the published list", () => {
    const decision = decide(parked("polling"), { type: "escalate", evidence: "still unknown after 2h" });
    expect(decision.ok && AUDIT_KINDS.includes(decision.auditKind)).toBe(true);
    expect(decision.ok && decision.auditKind).toBe("escalated");
  });

  it("closing for a replacement resolves the case and keeps its facts", () => {
    const closed = decide(
      { stage: "generation_failed", state: "parked", providerJobId: "job-5" },
      { type: "close_for_replacement", evidence: "finance authorised a replacement" },
    );
    expect(closed.ok && closed.auditKind).toBe("replacement_authorized");
    expect(closed.ok && closed.next).toEqual({ stage: "generation_failed", state: "resolved", providerJobId: "job-5" });
  });

  it("a contradicted no-job verdict goes back to reconciliation, with no job attached yet", () => {
    const back = decide(parked("generation_failed", null), {
      type: "return_to_reconciliation",
      evidence: "the provider now lists a matching job",
    });
    expect(back.ok && back.auditKind).toBe("returned_to_reconciliation");
    expect(back.ok && back.next).toEqual({ stage: "submission_uncertain", state: "parked", providerJobId: null });
  });

  it("a stage move keeps the provider job ID for the next reviewer", () => {
    const moved = decide(
      { stage: "polling", state: "claimed", providerJobId: "job-5" },
      { type: "move_stage", stage: "generation_failed", evidence: "provider: failed (nsfw)" },
    );
    expect(moved.ok && moved.next).toEqual({ stage: "generation_failed", state: "parked", providerJobId: "job-5" });
  });
});

describe("status predicates", () => {
  it("open and terminal are complements", () => {
    expect(CASE_STATES.filter(isOpen)).toEqual(["parked", "ready", "claimed"]);
    expect(CASE_STATES.filter(isTerminal)).toEqual(["resolved"]);
  });

  it("only ready cases with a recovery action can be claimed", () => {
    const claimable = CASE_STATES.flatMap((state) =>
      STAGES.filter((stage) => canBeClaimed({ stage, state })).map((stage) => `${stage}/${state}`),
    );
    expect(claimable).toEqual(["polling/ready", "delivery/ready"]);
  });
});
