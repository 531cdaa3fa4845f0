import type { Db } from "@/lib/db/client";
import type { CaseCommandType } from "@/lib/domain/case-commands";
import { ownershipRefuses } from "@/lib/domain/ownership";
import type { Principal } from "@/lib/domain/principal";
import { consoleSettings } from "../admin/console-settings";

/** Whether the actor may not send `command` to a case assigned to `assigneeId`. */
export type OwnershipRule = (command: CaseCommandType, assigneeId: string | null) => Promise<boolean>;

/**
 * "Assignment means ownership" (decision 028) as one actor meets it, for a single change or every
 * case of a bulk action alike. The setting is read at most once, and only when it could refuse
 * something (a person deciding a case assigned to another), so the assignee's own changes and
 * unassigned cases read nothing. Keys and worker tokens are not people: nothing is theirs to own.
 */
export function ownershipRule(db: Db, actor: Principal): OwnershipRule {
  if (actor.kind !== "user") return async () => false;
  const person = { id: actor.userId, roles: actor.roles };
  let setting: Promise<boolean> | undefined;
  return async (command, assigneeId) => {
    const asked = { command, assigneeId, person };
    if (!ownershipRefuses({ ...asked, ownership: true })) return false;
    setting ??= consoleSettings(db).then((settings) => settings.assignmentIsOwnership);
    return ownershipRefuses({ ...asked, ownership: await setting });
  };
}
