import type { CaseCommandType } from "./case-commands";
import type { Role } from "./roles";

/**
 * The commands that decide a case (as opposed to reading, noting or assigning it): while assignment
 * means ownership, only the assignee or an admin may send them for an assigned case.
 */
const DECIDING: ReadonlySet<CaseCommandType> = new Set<CaseCommandType>([
  "reconcile_attach",
  "reconcile_no_job",
  "approve",
  "reject",
  "escalate",
  "accept_failure",
  "accept_outputs_lost",
  "request_replacement",
  "return_to_reconciliation",
]);

export const isDecidingCommand = (command: CaseCommandType): boolean => DECIDING.has(command);

/** Whether assignment keeps this person from deciding this case (off, unassigned, theirs or an admin: no). */
export function ownedBySomeoneElse(input: {
  ownership: boolean;
  assigneeId: string | null;
  person: { id: string; roles: readonly Role[] };
}): boolean {
  const { ownership, assigneeId, person } = input;
  return ownership && assigneeId !== null && assigneeId !== person.id && !person.roles.includes("admin");
}

/**
 * The ownership rule as every deciding path asks it, one case at a time: whether this person may not
 * send this command to this case. Notes, assignment and the worker's steps are never owned.
 */
export function ownershipRefuses(input: {
  ownership: boolean;
  command: CaseCommandType;
  assigneeId: string | null;
  person: { id: string; roles: readonly Role[] };
}): boolean {
  return isDecidingCommand(input.command) && ownedBySomeoneElse(input);
}
