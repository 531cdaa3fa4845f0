import type { Prisma } from "@/lib/db/client";
import { completedSend, type SendFacts, sendFactsOf, unknownSendOutcome } from "@/lib/domain/send-outcome";
import { isStage } from "@/lib/domain/stages";
import { AppError } from "@/lib/errors";

/**
 * DESIGN rule 18: a hold whose send the provider may still complete is not released (finance may
 * write it off with a reason instead: `send_outcome_unknown`, 409), and one whose job is known to be
 * completed is neither released nor written off but settled (`send_completed`, 409).
 */
export async function refuseUnchargedResolution(
  tx: Prisma.TransactionClient,
  hold: { id: string; attemptRef: string; caseId: string | null },
  kind: "release" | "write_off",
): Promise<void> {
  const facts = await readSendFacts(tx, hold);
  const completed = completedSend(facts);
  if (completed)
    throw new AppError(
      "send_completed",
      `This hold is not ${kind === "release" ? "released" : "written off"}: ${completed}.`,
    );
  const why = kind === "release" ? unknownSendOutcome(facts) : null;
  if (why) {
    throw new AppError(
      "send_outcome_unknown",
      `This hold is not released: ${why}. Finance may write it off with a reason instead.`,
    );
  }
}

/** What is known of a hold's send, read in the caller's transaction. */
export async function readSendFacts(
  tx: Prisma.TransactionClient,
  hold: { id: string; attemptRef: string; caseId: string | null },
): Promise<SendFacts> {
  const [permit, kase] = await Promise.all([
    tx.sendPermit.findUnique({ where: { holdRef: hold.id }, select: { status: true, caseRef: true } }),
    hold.caseId
      ? tx.case.findUnique({ where: { id: hold.caseId }, select: { stage: true, state: true, attemptRef: true } })
      : null,
  ]);
  return sendFactsOf({
    attemptRef: hold.attemptRef,
    permit,
    case: kase && isStage(kase.stage) ? { ...kase, stage: kase.stage } : null,
  });
}
