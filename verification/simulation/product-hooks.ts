import type { CaseActionName } from "@/lib/domain/available-actions";
import type { CaseView } from "./case-views";

/**
 * Where the simulation meets product behaviour that is decided elsewhere: each hook is the one
 * place to connect it, so the people and the auditor need not change when it arrives.
 */

/**
 * Whether finance, the overview and the queue show this resolved case as "resolved, hold open -
 * needs a decision": they read resolved cases whose running `held_micros` is above zero (the
 * `needs_decision` view and the `resolved_held` figure), so a held hold the case's total missed
 * would go unflagged.
 */
export function isFlaggedForFinance(view: CaseView): boolean {
  return view.state === "resolved" && view.heldMicros > 0;
}

/** Console actions that are not decisions: they never move a case on. */
export const NOT_DECISIONS: ReadonlySet<CaseActionName | string> = new Set(["add_note", "assign", "review"]);
