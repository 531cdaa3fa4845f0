import type { Prisma } from "@/lib/db/client";
import { unknownSendOutcome } from "@/lib/domain/send-outcome";
import { isStage } from "@/lib/domain/stages";
import { AppError } from "@/lib/errors";

/**
 * DESIGN rule 18: a hold whose send the provider may still complete is not released. Throws
 * `send_outcome_unknown` (409) saying why; finance may write the hold off with a reason instead.
 */
export async function refuseReleaseWhileUnknown(
  tx: Prisma.TransactionClient,
  hold: { id: string; attemptRef: string; caseId: string | null },
): Promise<void> {
  const [permit, kase] = await Promise.all([
    tx.sendPermit.findUnique({ where: { holdRef: hold.id }, select: { status: true, caseRef: true } }),
    hold.caseId
      ? tx.case.findUnique({ where: { id: hold.caseId }, select: { stage: true, state: true, attemptRef: true } })
      : null,
  ]);
  const why = unknownSendOutcome({
    permit: permit ? { status: permit.status, parked: permit.caseRef !== null } : null,
    case:
      kase && isStage(kase.stage)
        ? { stage: kase.stage, state: kase.state, current: kase.attemptRef === hold.attemptRef }
        : null,
  });
  if (why) {
    throw new AppError(
      "send_outcome_unknown",
      `This hold is not released: ${why}. Finance may write it off with a reason instead.`,
    );
  }
}
