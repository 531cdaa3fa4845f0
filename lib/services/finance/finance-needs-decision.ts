import type { Db } from "@/lib/db/client";
import type { ProducerFilter } from "@/lib/db/stat-figures";
import type { Principal } from "@/lib/domain/principal";
import { requirePermission, visibleProducers } from "../access/actor";
import { caseFlagFigures, type HoldOpenFigure } from "../case/case-flags";

/**
 * Finance's "needs a decision" banner: resolved cases whose hold is still open (rule 13), by
 * currency, of the producers asked for within the reader's own (decision 035): a person limited to
 * some producers who asks for another's gets nothing, never that producer's count or money.
 */
export async function getNeedsDecision(
  db: Db,
  actor: Principal,
  producers: ProducerFilter = null,
): Promise<HoldOpenFigure[]> {
  requirePermission(actor, "hold:read");
  return (await caseFlagFigures(db, visibleProducers(actor, producers))).holdOpen;
}
