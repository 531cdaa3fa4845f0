import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import { requireProducer } from "../access/actor";

/** A producer sees only the operations it parked itself (scoped by its key's producer name). */
export async function getCaseByOperation(db: Db, actor: Principal, operationId: string) {
  const producer = requireProducer(actor);
  const row = await db.case.findFirst({ where: { producer: producer.name, operationId } });
  if (!row) throw new AppError("not_found", "No case for this operation.");
  return {
    caseId: row.id,
    operationId: row.operationId,
    attemptId: row.attemptId,
    stage: row.stage,
    state: row.state,
    episode: row.episode,
    outcome: row.outcome,
    updatedAt: row.updatedAt.toISOString(),
  };
}
