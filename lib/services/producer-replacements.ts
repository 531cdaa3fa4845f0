import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import { requireProducer } from "./actor";
import { recordAudit } from "./record-audit";

/**
 * Authorised replacements waiting for the producer to submit them itself (the console never does).
 * `authorized` lists those not yet acknowledged; `acknowledged` those already taken.
 */
export async function listReplacements(db: Db, actor: Principal, status: "authorized" | "acknowledged") {
  const producer = requireProducer(actor);
  const rows = await db.replacementRequest.findMany({
    where: {
      status: "authorized",
      acknowledgedAt: status === "authorized" ? null : { not: null },
      case: { producer: producer.name },
    },
    include: { case: { select: { operationId: true, provider: true, model: true } } },
    orderBy: { decidedAt: "asc" },
    take: 200,
  });
  const attempts = await db.attempt.findMany({
    where: { id: { in: rows.flatMap((r) => (r.newAttemptRef ? [r.newAttemptRef] : [])) } },
    include: { hold: true, replaces: true },
  });
  return {
    items: rows.map((r) => {
      const attempt = attempts.find((a) => a.id === r.newAttemptRef);
      return {
        id: r.id,
        operationId: r.case.operationId,
        provider: r.case.provider,
        model: r.case.model,
        attemptId: attempt?.attemptId ?? null,
        replacesAttemptId: attempt?.replaces?.attemptId ?? null,
        hold: attempt?.hold
          ? {
              holdId: attempt.hold.holdId,
              amountMicros: Number(attempt.hold.amountMicros),
              currency: attempt.hold.currency,
            }
          : null,
        authorizedAt: r.decidedAt?.toISOString() ?? null,
        acknowledgedAt: r.acknowledgedAt?.toISOString() ?? null,
      };
    }),
  };
}

/** Acknowledging twice is harmless: the first time is kept. */
export async function acknowledgeReplacement(db: Db, actor: Principal, requestId: string) {
  const producer = requireProducer(actor);
  const row = await db.replacementRequest.findFirst({
    where: { id: requestId, status: "authorized", case: { producer: producer.name } },
  });
  if (!row) throw new AppError("not_found", "No authorised replacement with this ID for this producer.");
  const acknowledgedAt = row.acknowledgedAt ?? new Date();
  const { count } = await db.replacementRequest.updateMany({
    where: { id: row.id, acknowledgedAt: null },
    data: { acknowledgedAt },
  });
  if (count === 1) {
    await recordAudit(db, {
      actor: producer,
      kind: "replacement_acknowledged",
      caseId: row.caseId,
      evidence: { requestId: row.id },
    });
  }
  const current = await db.replacementRequest.findUniqueOrThrow({ where: { id: row.id } });
  return { id: current.id, acknowledgedAt: current.acknowledgedAt?.toISOString() ?? null };
}
