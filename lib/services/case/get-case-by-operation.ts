import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import type { PermitStatus } from "@/lib/domain/send-permits";
import type { CaseState, Stage } from "@/lib/domain/stages";
import { AppError } from "@/lib/errors";
import { requireProducer } from "../access/actor";

/** The operation's latest send permit, as the producer sees it. */
export type PermitStanding = {
  attemptId: string;
  token: number;
  status: PermitStatus;
  providerJobId: string | null;
  sendDeadline: string;
  reportedAt: string | null;
};

/**
 * Where an operation stands: its case with its latest permit (null when it was parked without one),
 * or a permit alone for a send that never needed a case (in flight, refused, completed).
 */
export type OperationStanding =
  | {
      operationId: string;
      caseId: string;
      attemptId: string;
      stage: Stage;
      state: CaseState;
      episode: number;
      outcome: string | null;
      updatedAt: string;
      permit: PermitStanding | null;
    }
  | { operationId: string; caseId: null; permit: PermitStanding };

/**
 * A producer sees only its own operations (scoped by its key's producer name). An operation sent
 * under a permit that completed without a case is not "not found": the app knows it, and a producer
 * that lost its own record must be able to learn that it was paid for. Only an operation the app
 * never saw is a 404.
 */
export async function getCaseByOperation(db: Db, actor: Principal, operationId: string): Promise<OperationStanding> {
  const producer = requireProducer(actor);
  const [row, latest] = await Promise.all([
    db.case.findFirst({ where: { producer: producer.name, operationId } }),
    db.sendPermit.findFirst({
      where: { producer: producer.name, operation: { producer: producer.name, operationId } },
      orderBy: { token: "desc" },
      include: { attempt: { select: { attemptId: true } } },
    }),
  ]);
  const permit: PermitStanding | null = latest && {
    attemptId: latest.attempt.attemptId,
    token: latest.token,
    status: latest.status,
    providerJobId: latest.providerJobId,
    sendDeadline: latest.sendDeadline.toISOString(),
    reportedAt: latest.reportedAt?.toISOString() ?? null,
  };
  if (row) {
    return {
      operationId: row.operationId,
      caseId: row.id,
      attemptId: row.attemptId,
      stage: row.stage,
      state: row.state,
      episode: row.episode,
      outcome: row.outcome,
      updatedAt: row.updatedAt.toISOString(),
      permit,
    };
  }
  if (permit) return { operationId, caseId: null, permit };
  throw new AppError("not_found", "No case or send permit for this operation.");
}
