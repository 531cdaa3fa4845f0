import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import type { CaseState, Stage } from "@/lib/domain/stages";
import { requirePermission, visibleProducers } from "../access/actor";

/** A case a person may open, found by its operation ID: enough to choose between several. */
export type OperationMatch = { caseId: string; producer: string; operationId: string; stage: Stage; state: CaseState };

/**
 * The cases whose operation ID is `operationId`, among the producers the person may see. Operation
 * IDs are unique per producer only, so there may be several (one per producer); another producer's
 * case is simply not among them, so the answer never tells a scoped person that it exists.
 */
export async function findCasesByOperation(db: Db, actor: Principal, operationId: string): Promise<OperationMatch[]> {
  const user = requirePermission(actor, "case:read");
  const producers = visibleProducers(user, null);
  const rows = await db.case.findMany({
    where: { operationId, ...(producers ? { producer: { in: producers } } : {}) },
    select: { id: true, producer: true, operationId: true, stage: true, state: true },
    orderBy: [{ producer: "asc" }, { id: "asc" }],
    take: 50,
  });
  return rows.map(({ id, ...rest }) => ({ caseId: id, ...rest }));
}
