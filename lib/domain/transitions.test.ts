import { describe, expect, it } from "vitest";
import { CASE_COMMAND_TYPES, type CaseCommand, type CaseSnapshot } from "./case-commands";
import type { DomainErrorCode } from "./errors";
import { CASE_STATES, type CaseState, STAGES, type Stage } from "./stages";
import { decide } from "./transitions";

const JOB: Record<Stage, string | null> = {
  submission_uncertain: null,
  polling: "job-1",
  delivery: "job-1",
  generation_failed: null,
};

// One fixed, valid command per type. approve uses the action a reviewer would most plausibly
// try in each stage, so the table shows the stage gate rather than a typo.
const APPROVE_ACTION: Record<Stage, string> = {
  submission_uncertain: "resume_poll",
  polling: "resume_poll",
  delivery: "retry_delivery",
  generation_failed: "retry_delivery",
};

function commandFor(type: CaseCommand["type"], stage: Stage): CaseCommand {
  switch (type) {
    case "reconcile_attach":
      return { type, providerJobId: "job-9", evidence: "matched by client reference" };
    case "approve":
      return { type, action: APPROVE_ACTION[stage], evidence: "job confirmed" };
    case "add_note":
      return { type, text: "looked at it" };
    case "assign":
      return { type, assigneeId: "user-7" };
    case "move_stage":
    case "observe_outcome":
      return { type, stage: "delivery", evidence: "provider says succeeded" };
    case "reopen":
      return { type, stage: "polling", providerJobId: "job-2" };
    case "claim":
    case "finish_resolved":
    case "rescue_lease":
    case "release_claim":
      return { type };
    default:
      return { type, evidence: "seen in provider console" };
  }
}

type Cell =
  | DomainErrorCode
  | "same"
  | { stage: Stage; state: CaseState; providerJobId?: string | null; outputsUnavailable?: true };
type Row = readonly [Cell, Cell, Cell, Cell]; // submission_uncertain, polling, delivery, generation_failed
type Grid = Record<CaseState, Row>;

const ILL = "illegal_transition";
const REC = "reconciliation_required";
const NP = "action_not_permitted_for_stage";
const RNA = "replacement_not_allowed";
const S = "same";
const none: Row = [ILL, ILL, ILL, ILL];
const all = (cell: Cell): Row => [cell, cell, cell, cell];

const EXPECTED: Record<CaseCommand["type"], Grid> = {
  reconcile_attach: {
    parked: [{ stage: "polling", state: "parked", providerJobId: "job-9" }, ILL, ILL, ILL],
    ready: none,
    claimed: none,
    resolved: none,
  },
  reconcile_no_job: {
    parked: [{ stage: "generation_failed", state: "parked", providerJobId: null }, ILL, ILL, ILL],
    ready: none,
    claimed: none,
    resolved: none,
  },
  approve: {
    parked: [REC, { stage: "polling", state: "ready" }, { stage: "delivery", state: "ready" }, NP],
    ready: none,
    claimed: none,
    resolved: none,
  },
  reject: { parked: all(S), ready: none, claimed: none, resolved: none },
  escalate: { parked: all(S), ready: none, claimed: none, resolved: none },
  add_note: { parked: all(S), ready: all(S), claimed: all(S), resolved: all(S) },
  assign: { parked: all(S), ready: all(S), claimed: all(S), resolved: none },
  accept_failure: {
    parked: [REC, NP, NP, { stage: "generation_failed", state: "resolved" }],
    ready: none,
    claimed: none,
    resolved: none,
  },
  claim: {
    parked: none,
    ready: [NP, { stage: "polling", state: "claimed" }, { stage: "delivery", state: "claimed" }, NP],
    claimed: none,
    resolved: none,
  },
  finish_resolved: {
    parked: none,
    ready: none,
    claimed: [ILL, ILL, { stage: "delivery", state: "resolved" }, ILL],
    resolved: none,
  },
  finish_unresolved: {
    parked: none,
    ready: none,
    claimed: [
      { stage: "submission_uncertain", state: "parked" },
      { stage: "polling", state: "parked" },
      { stage: "delivery", state: "parked" },
      { stage: "generation_failed", state: "parked" },
    ],
    resolved: none,
  },
  move_stage: {
    parked: none,
    ready: none,
    claimed: [ILL, { stage: "delivery", state: "claimed" }, ILL, ILL],
    resolved: none,
  },
  observe_outcome: {
    parked: [ILL, { stage: "delivery", state: "parked" }, ILL, ILL],
    ready: none,
    claimed: none,
    resolved: none,
  },
  rescue_lease: {
    parked: none,
    ready: none,
    claimed: [NP, { stage: "polling", state: "ready" }, { stage: "delivery", state: "ready" }, NP],
    resolved: none,
  },
  reschedule: {
    parked: none,
    ready: none,
    claimed: [NP, { stage: "polling", state: "ready" }, { stage: "delivery", state: "ready" }, NP],
    resolved: none,
  },
  release_claim: {
    parked: none,
    ready: none,
    claimed: [NP, { stage: "polling", state: "ready" }, { stage: "delivery", state: "ready" }, NP],
    resolved: none,
  },
  reopen: {
    parked: none,
    ready: none,
    claimed: none,
    resolved: all({ stage: "polling", state: "parked", providerJobId: "job-2" }),
  },
  request_replacement: { parked: [RNA, RNA, RNA, S], ready: none, claimed: none, resolved: none },
  close_for_replacement: {
    parked: [RNA, RNA, RNA, { stage: "generation_failed", state: "resolved" }],
    ready: none,
    claimed: none,
    resolved: none,
  },
  park_poison: {
    parked: none,
    ready: [NP, { stage: "polling", state: "parked" }, { stage: "delivery", state: "parked" }, NP],
    claimed: [NP, { stage: "polling", state: "parked" }, { stage: "delivery", state: "parked" }, NP],
    resolved: none,
  },
  mark_outputs_unavailable: {
    parked: none,
    ready: none,
    claimed: [ILL, ILL, { stage: "delivery", state: "parked", outputsUnavailable: true }, ILL],
    resolved: none,
  },
  accept_outputs_lost: { parked: all(NP), ready: none, claimed: none, resolved: none },
  escalate_overdue: { parked: all(S), ready: all(S), claimed: all(S), resolved: none },
  return_to_reconciliation: {
    parked: [ILL, ILL, ILL, { stage: "submission_uncertain", state: "parked", providerJobId: null }],
    ready: none,
    claimed: none,
    resolved: none,
  },
};

describe("decide: every state x stage x command", () => {
  it("covers every command type", () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...CASE_COMMAND_TYPES].sort());
  });

  for (const type of CASE_COMMAND_TYPES) {
    for (const state of CASE_STATES) {
      STAGES.forEach((stage, column) => {
        const cell = EXPECTED[type][state][column];
        it(`${type} on ${stage}/${state} -> ${typeof cell === "object" ? `${cell.stage}/${cell.state}` : cell}`, () => {
          const from: CaseSnapshot = { stage, state, providerJobId: JOB[stage] };
          const frozen = Object.freeze({ ...from });
          const decision = decide(frozen, commandFor(type, stage));
          if (cell === undefined) throw new Error("table is missing a cell");
          if (typeof cell === "string" && cell !== "same") {
            expect(decision.ok).toBe(false);
            if (!decision.ok) expect(decision.error.code).toBe(cell);
            return;
          }
          expect(decision.ok).toBe(true);
          if (!decision.ok) return;
          const expected: CaseSnapshot =
            cell === "same"
              ? from
              : {
                  stage: cell.stage,
                  state: cell.state,
                  providerJobId: cell.providerJobId === undefined ? from.providerJobId : cell.providerJobId,
                  ...(cell.outputsUnavailable ? { outputsUnavailable: true } : {}),
                };
          expect(decision.next).toEqual(expected);
          expect(decision.changesState).toBe(cell !== "same");
          expect(decision.next).not.toBe(frozen);
        });
      });
    }
  }
});
