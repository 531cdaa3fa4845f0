import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { scopeOf } from "@/lib/domain/producer-scope";
import { requirePermission } from "../access/actor";

type Cost = { holdId: string; amountMicros: number; currency: string; status: string } | null;

export type SuspectedDuplicateItem = {
  id: string;
  caseId: string;
  operationId: string;
  provider: string;
  providerJobId: string;
  withdrawn: boolean;
  detectedAt: string;
  original: Cost;
  replacement: Cost;
};

/**
 * Replacements whose original job turned up afterwards, with what each attempt holds or was
 * charged: finance decides from this whether the provider billed twice. The Finance page lists
 * them all (hold:read); a case page shows its own (case:read).
 */
export async function listSuspectedDuplicates(
  db: Db,
  actor: Principal,
  filter: { caseId?: string } = {},
): Promise<SuspectedDuplicateItem[]> {
  requirePermission(actor, filter.caseId ? "case:read" : "hold:read");
  const scope = scopeOf(actor);
  const rows = await db.suspectedDuplicate.findMany({
    where: {
      ...(filter.caseId ? { caseId: filter.caseId } : {}),
      ...(scope ? { case: { producer: { in: [...scope] } } } : {}),
    },
    include: { case: { select: { operationId: true, provider: true } } },
    orderBy: { detectedAt: "desc" },
    take: 200,
  });
  const holds = await db.hold.findMany({
    where: { attemptRef: { in: rows.flatMap((r) => [r.originalAttemptRef, r.replacementAttemptRef]) } },
  });
  const cost = (attemptRef: string): Cost => {
    const hold = holds.find((h) => h.attemptRef === attemptRef);
    if (!hold) return null;
    // A settled hold shows what was charged; an open or released one what was held.
    const amount = hold.status === "settled" ? hold.settledMicros : hold.amountMicros;
    return { holdId: hold.holdId, amountMicros: Number(amount), currency: hold.currency, status: hold.status };
  };
  return rows.map((r) => ({
    id: r.id,
    caseId: r.caseId,
    operationId: r.case.operationId,
    provider: r.case.provider,
    providerJobId: r.providerJobId,
    withdrawn: r.withdrawn,
    detectedAt: r.detectedAt.toISOString(),
    original: cost(r.originalAttemptRef),
    replacement: cost(r.replacementAttemptRef),
  }));
}
