import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { scopeOf } from "@/lib/domain/producer-scope";
import { isReplacementExpired } from "@/lib/domain/replacement";
import { requirePermission } from "../access/actor";
import { describeBreach, firstBreach, type LimitInUse, limitsInUse } from "../spend-limit/enforce-spend-limit";

const LIMIT = 100;

/**
 * Replacement requests waiting for finance, soonest to expire first, with who asked (the console
 * hides the decision buttons on one's own requests; the decide service refuses them regardless)
 * and the original attempt's hold, so the duplicate spend is visible next to what it replaces.
 */
export async function listPendingReplacementRequests(db: Db, actor: Principal, now = new Date()) {
  requirePermission(actor, "hold:read");
  const scope = scopeOf(actor);
  const rows = await db.replacementRequest.findMany({
    where: { status: "pending", ...(scope ? { case: { producer: { in: [...scope] } } } : {}) },
    orderBy: [{ expiresAt: "asc" }, { id: "asc" }],
    take: LIMIT + 1,
    include: { case: { select: { operationId: true, provider: true, model: true, stage: true, producer: true } } },
  });
  const page = rows.slice(0, LIMIT);
  // What authorising each would meet now, so finance is warned before pressing the button: the
  // limits and their use are read once per currency and producer, however many requests share them.
  const limits = new Map<string, Promise<LimitInUse[]>>();
  const limitsOf = (currency: string, producer: string) => {
    const key = JSON.stringify([currency, producer]);
    const known = limits.get(key) ?? limitsInUse(db, { currency, producer, now }, { lock: false });
    limits.set(key, known);
    return known;
  };
  const breaches = await Promise.all(
    page.map(async (request) =>
      firstBreach(
        await limitsOf(request.currency, request.case.producer),
        request.currency,
        Number(request.amountMicros),
      ),
    ),
  );
  const everyProducer = scope === null;
  const [users, originals] = await Promise.all([
    db.user.findMany({
      where: { id: { in: [...new Set(page.map((r) => r.requestedById))] } },
      select: { id: true, email: true, name: true },
    }),
    db.hold.findMany({
      where: { attemptRef: { in: page.map((r) => r.originalAttemptRef) } },
      select: { attemptRef: true, amountMicros: true, currency: true, status: true },
    }),
  ]);
  return {
    items: page.map((request, index) => {
      const breach = breaches[index] ?? null;
      const original = originals.find((h) => h.attemptRef === request.originalAttemptRef);
      const requester = users.find((u) => u.id === request.requestedById);
      return {
        id: request.id,
        caseId: request.caseId,
        operationId: request.case.operationId,
        provider: request.case.provider,
        model: request.case.model,
        stage: request.case.stage,
        requestedById: request.requestedById,
        requestedBy: requester ? requester.email : "unknown user",
        evidence: request.evidence,
        amountMicros: Number(request.amountMicros),
        currency: request.currency,
        originalHold: original
          ? { amountMicros: Number(original.amountMicros), currency: original.currency, status: original.status }
          : null,
        createdAt: request.createdAt.toISOString(),
        expiresAt: request.expiresAt.toISOString(),
        expired: isReplacementExpired(request.expiresAt, now),
        /** Why authorising now would be refused by a spend limit, or null. */
        spendLimitWarning: breach ? describeBreach(breach, { everyProducer }) : null,
      };
    }),
    truncated: rows.length > LIMIT,
  };
}

export type ReplacementRequestItem = Awaited<ReturnType<typeof listPendingReplacementRequests>>["items"][number];
