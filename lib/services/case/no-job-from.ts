import type { Db } from "@/lib/db/client";
import { settledDeadline } from "@/lib/domain/escalation";
import { noJobSettlingSeconds } from "../admin/provider-settings";

type NoJobFacts = {
  attemptRef: string;
  provider: string;
  retryDeadline: Date | null;
  submittedAt: Date | null;
  openedAt: Date;
};

/**
 * The first moment "no job exists" may be recorded on the case (DESIGN section 7): the deadline plus
 * the settling period of the case's provider (provider_settings, else the adapter's default), read
 * now so an admin's change applies at once. A case a send permit parked has the period in its retry
 * deadline already (the send deadline plus the period, decision 036). The same moment applies to a
 * job the provider does not know (decision 068): a late job may still appear under another ID.
 */
export async function noJobAllowedFrom(db: Db, row: NoJobFacts): Promise<Date> {
  const permitted = await db.sendPermit.findUnique({ where: { attemptRef: row.attemptRef }, select: { id: true } });
  const deadlineIncludesSettling = permitted !== null && row.retryDeadline !== null;
  return settledDeadline({
    deadline: row.retryDeadline ?? row.submittedAt ?? row.openedAt,
    deadlineIncludesSettling,
    settlingSeconds: deadlineIncludesSettling ? 0 : await noJobSettlingSeconds(db, row.provider),
  });
}
