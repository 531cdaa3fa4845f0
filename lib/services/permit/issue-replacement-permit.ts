import { recordAudit } from "@/lib/audit/writer";
import type { Prisma } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { REPLACEMENT_SEND_WINDOW_SECONDS } from "@/lib/domain/send-permits";

/**
 * The permit of a send the product itself authorised (decision 036): a replacement finance
 * authorised is a paid create like any other, so it gets the write-ahead marker a producer's own
 * send asks for, in the authorisation's transaction, bound to the replacement's attempt and its own
 * hold. Its token follows the operation's earlier permits (1 when the operation was parked without
 * one), so a report under an earlier permit's token is stale from here. The producer reads it with
 * the replacement, or asks for it with the same facts, and reports on it like any permit.
 */
export async function issueReplacementPermit(
  tx: Prisma.TransactionClient,
  input: {
    actor: Principal;
    producer: string;
    operationRef: string;
    operationId: string;
    attempt: { id: string; attemptId: string };
    hold: { id: string; holdId: string; amountMicros: bigint; currency: string };
    caseId: string;
    episode: number;
    now: Date;
  },
): Promise<{ token: number; sendDeadline: Date }> {
  // Taken in the order a producer's permit request takes it, so the two never issue one token twice.
  await tx.$queryRaw`SELECT id FROM operations WHERE id = ${input.operationRef}::uuid FOR UPDATE`;
  const latest = await tx.sendPermit.aggregate({ where: { operationRef: input.operationRef }, _max: { token: true } });
  const token = (latest._max.token ?? 0) + 1;
  // The producer fetches authorised replacements on its own schedule: it gets the longest window a
  // permit may have, after which a replacement nobody reported on parks as an uncertain submission.
  const sendDeadline = new Date(input.now.getTime() + REPLACEMENT_SEND_WINDOW_SECONDS * 1000);
  await tx.sendPermit.create({
    data: {
      producer: input.producer,
      operationRef: input.operationRef,
      attemptRef: input.attempt.id,
      holdRef: input.hold.id,
      token,
      sendDeadline,
    },
  });
  await recordAudit(tx, {
    actor: input.actor,
    kind: "permit_issued",
    caseId: input.caseId,
    episode: input.episode,
    after: {
      producer: input.producer,
      operationId: input.operationId,
      attemptId: input.attempt.attemptId,
      token,
      sendDeadline: sendDeadline.toISOString(),
      holdId: input.hold.holdId,
      amountMicros: Number(input.hold.amountMicros),
      currency: input.hold.currency,
    },
  });
  return { token, sendDeadline };
}
