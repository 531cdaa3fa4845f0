import type { CaseCommand } from "./case-commands";
import { can, type Permission, type Role } from "./roles";
import { permittedRecoveryAction, type Stage } from "./stages";

/**
 * What a person may do to many cases at once. Each verb is the single-case decision of the same
 * name, asked of every case on its own: a case the decision refuses is skipped with its reason,
 * never forced. Replacements and reconciliation stay one case at a time (each needs its own evidence).
 */
export const BULK_VERBS = ["approve", "reject", "escalate", "assign", "note", "accept_failure"] as const;
export type BulkVerb = (typeof BULK_VERBS)[number];

/** The parameters each verb carries, the same for every case it touches. */
export type BulkAction =
  | { verb: "approve" | "reject" | "escalate" | "accept_failure"; evidence: string }
  | { verb: "assign"; assigneeId: string | null }
  | { verb: "note"; text: string };

/** The permission each verb needs: the same one its single-case service checks. */
export const BULK_VERB_PERMISSION: Readonly<Record<BulkVerb, Permission>> = {
  approve: "case:approve",
  reject: "case:approve",
  escalate: "case:approve",
  assign: "case:assign",
  note: "case:note",
  accept_failure: "case:accept_failure",
};

export function bulkVerbsFor(roles: readonly Role[]): BulkVerb[] {
  return BULK_VERBS.filter((verb) => can(roles, BULK_VERB_PERMISSION[verb]));
}

/**
 * The command `decide()` is asked for one case. Approval is the stage's own recovery: a stage with
 * none asks for "none", which the decision refuses with the stage's reason.
 */
export function bulkCommand(action: BulkAction, stage: Stage): CaseCommand {
  switch (action.verb) {
    case "approve":
      return { type: "approve", action: permittedRecoveryAction(stage) ?? "none", evidence: action.evidence };
    case "reject":
    case "escalate":
    case "accept_failure":
      return { type: action.verb, evidence: action.evidence };
    case "assign":
      return { type: "assign", assigneeId: action.assigneeId };
    case "note":
      return { type: "add_note", text: action.text };
  }
}
