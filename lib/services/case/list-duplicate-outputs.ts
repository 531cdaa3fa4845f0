import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { inProducerScope, scopeOf } from "@/lib/domain/producer-scope";
import { requirePermission } from "../access/actor";

type Cost = { holdId: string; amountMicros: number; currency: string; status: string } | null;

/** One case of a pair: in full within the reader's producers, else only that it exists (decision 072). */
export type DuplicateOutputSide =
  | { hidden: false; caseId: string; operationId: string; producer: string; cost: Cost }
  | { hidden: true };

export type DuplicateOutputItem = {
  id: string;
  detectedAt: string;
  first: DuplicateOutputSide;
  second: DuplicateOutputSide;
};

/**
 * Pairs of paid jobs that delivered the same bytes, newest first, with what each attempt holds or
 * was charged. The Finance page lists every pair with a side in the reader's producers (hold:read);
 * a case page its own pairs (case:read). The other producer's side of a pair stays hidden.
 */
export async function listDuplicateOutputs(
  db: Db,
  actor: Principal,
  filter: { caseId?: string } = {},
): Promise<DuplicateOutputItem[]> {
  requirePermission(actor, filter.caseId ? "case:read" : "hold:read");
  const scope = scopeOf(actor);
  const rows = await db.outputDuplicate.findMany({
    where: filter.caseId ? { OR: [{ firstCaseId: filter.caseId }, { secondCaseId: filter.caseId }] } : {},
    orderBy: [{ detectedAt: "desc" }, { id: "asc" }],
    take: 200,
  });
  const caseIds = [...new Set(rows.flatMap((r) => [r.firstCaseId, r.secondCaseId]))];
  const assetIds = rows.flatMap((r) => [r.firstAssetId, r.secondAssetId]);
  const [cases, assets] = await Promise.all([
    db.case.findMany({ where: { id: { in: caseIds } }, select: { id: true, operationId: true, producer: true } }),
    db.asset.findMany({ where: { id: { in: assetIds } }, select: { id: true, attemptRef: true } }),
  ]);
  const holds = await db.hold.findMany({ where: { attemptRef: { in: assets.map((a) => a.attemptRef) } } });
  const side = (caseId: string, assetId: string): DuplicateOutputSide => {
    const kase = cases.find((c) => c.id === caseId);
    if (!kase || !inProducerScope(scope, kase.producer)) return { hidden: true };
    const attemptRef = assets.find((a) => a.id === assetId)?.attemptRef;
    const hold = holds.find((h) => h.attemptRef === attemptRef);
    // A settled hold shows what was charged; an open or released one what was held.
    const cost: Cost = hold
      ? {
          holdId: hold.holdId,
          amountMicros: Number(hold.status === "settled" ? hold.settledMicros : hold.amountMicros),
          currency: hold.currency,
          status: hold.status,
        }
      : null;
    return { hidden: false, caseId: kase.id, operationId: kase.operationId, producer: kase.producer, cost };
  };
  return rows
    .map((r) => ({
      id: r.id,
      detectedAt: r.detectedAt.toISOString(),
      first: side(r.firstCaseId, r.firstAssetId),
      second: side(r.secondCaseId, r.secondAssetId),
    }))
    .filter((item) => !item.first.hidden || !item.second.hidden);
}
