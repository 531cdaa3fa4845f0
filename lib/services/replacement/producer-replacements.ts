import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import type { Env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { requireProducer } from "../access/actor";
import { webhookFor } from "../permit/request-permit";

/**
 * Authorised replacements waiting for the producer to submit them itself (the console never does).
 * `authorized` lists those not yet acknowledged; `acknowledged` those already taken; `withdrawn`
 * those authorised but called back because the original job turned up (never submit one of them).
 * Each carries its send permit (decision 036) as a permit request would answer it, with the webhook
 * URLs signed for its attempt; a withdrawn replacement's permit is `withdrawn`, void.
 */
export async function listReplacements(
  db: Db,
  actor: Principal,
  status: "authorized" | "acknowledged" | "withdrawn",
  settings: Pick<Env, "AUTH_SECRET" | "authUrl">,
) {
  const producer = requireProducer(actor);
  const rows = await db.replacementRequest.findMany({
    where:
      status === "withdrawn"
        ? { status: "withdrawn", newAttemptRef: { not: null }, case: { producer: producer.name } }
        : {
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
    include: { hold: true, replaces: true, permit: true },
  });
  return {
    items: rows.map((r) => {
      const attempt = attempts.find((a) => a.id === r.newAttemptRef);
      return {
        id: r.id,
        status: r.status,
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
        permit: attempt?.permit
          ? {
              operationId: r.case.operationId,
              attemptId: attempt.attemptId,
              token: attempt.permit.token,
              sendDeadline: attempt.permit.sendDeadline.toISOString(),
              holdId: attempt.hold?.holdId ?? "",
              status: attempt.permit.status,
            }
          : null,
        webhook: attempt?.permit ? webhookFor(producer.name, r.case.operationId, attempt.attemptId, settings) : null,
        authorizedAt: r.decidedAt?.toISOString() ?? null,
        acknowledgedAt: r.acknowledgedAt?.toISOString() ?? null,
        ...(r.status === "withdrawn" ? { withdrawnReason: r.closedReason } : {}),
      };
    }),
  };
}

/**
 * Acknowledging twice is harmless: the first time is kept. A withdrawn replacement is refused. An
 * acknowledged replacement is never withdrawn, nor is one whose permit was reported on.
 */
export async function acknowledgeReplacement(db: Db, actor: Principal, requestId: string) {
  const producer = requireProducer(actor);
  const row = await db.replacementRequest.findFirst({
    where: { id: requestId, status: { in: ["authorized", "withdrawn"] }, case: { producer: producer.name } },
  });
  if (!row || (row.status === "withdrawn" && row.newAttemptRef === null)) {
    throw new AppError("not_found", "No authorised replacement with this ID for this producer.");
  }
  if (row.status === "withdrawn") throw withdrawnError();
  const acknowledgedAt = row.acknowledgedAt ?? new Date();
  // The status is part of the condition: a withdrawal that lands first wins, and is reported.
  const { count } = await db.replacementRequest.updateMany({
    where: { id: row.id, status: "authorized", acknowledgedAt: null },
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
  if (current.status === "withdrawn") throw withdrawnError();
  // `changed` says this call took it: a sender that acknowledges before its create (the SDK's
  // submitReplacement) sends only then, so two processes never both send one replacement.
  return { id: current.id, acknowledgedAt: current.acknowledgedAt?.toISOString() ?? null, changed: count === 1 };
}

function withdrawnError() {
  return new AppError(
    "replacement_withdrawn",
    "This replacement was withdrawn: the original job turned up at the provider. Do not submit it.",
  );
}
