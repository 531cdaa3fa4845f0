import type { CaseCommand, CaseSnapshot } from "./case-commands";
import { isDecidingCommand } from "./ownership";
import { can, type Permission, type Role } from "./roles";
import { permittedRecoveryAction } from "./stages";
import { decide } from "./transitions";

export type CaseActionName =
  | "reconcile_attach"
  | "reconcile_no_job"
  | "approve"
  | "review"
  | "accept_failure"
  | "accept_outputs_lost"
  | "request_replacement"
  | "add_note"
  | "assign";

const PROBES: { name: CaseActionName; permission: Permission; command: (s: CaseSnapshot) => CaseCommand }[] = [
  {
    name: "reconcile_attach",
    permission: "case:reconcile",
    command: () => ({ type: "reconcile_attach", providerJobId: "probe", evidence: "probe" }),
  },
  {
    name: "reconcile_no_job",
    permission: "case:reconcile",
    command: () => ({ type: "reconcile_no_job", evidence: "probe" }),
  },
  {
    name: "approve",
    permission: "case:approve",
    command: (s) => ({ type: "approve", action: permittedRecoveryAction(s.stage) ?? "none", evidence: "probe" }),
  },
  { name: "review", permission: "case:approve", command: () => ({ type: "reject", evidence: "probe" }) },
  {
    name: "accept_failure",
    permission: "case:accept_failure",
    command: () => ({ type: "accept_failure", evidence: "probe" }),
  },
  {
    name: "accept_outputs_lost",
    permission: "case:accept_failure",
    command: () => ({ type: "accept_outputs_lost", evidence: "probe" }),
  },
  {
    name: "request_replacement",
    permission: "replacement:request",
    command: () => ({ type: "request_replacement", evidence: "probe" }),
  },
  { name: "add_note", permission: "case:note", command: () => ({ type: "add_note", text: "probe" }) },
  { name: "assign", permission: "case:assign", command: () => ({ type: "assign", assigneeId: null }) },
];

/**
 * What the console offers: exactly the commands the decision function would accept for this case
 * and these roles, so a button is never shown for something the server would refuse.
 */
export function availableCaseActions(
  snapshot: CaseSnapshot,
  roles: readonly Role[],
  { ownedElsewhere = false }: { ownedElsewhere?: boolean } = {},
): Set<CaseActionName> {
  return new Set(
    PROBES.filter((probe) => {
      const command = probe.command(snapshot);
      if (ownedElsewhere && isDecidingCommand(command.type)) return false;
      return can(roles, probe.permission) && decide(snapshot, command).ok;
    }).map((p) => p.name),
  );
}
