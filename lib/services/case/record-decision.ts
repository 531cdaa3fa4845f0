import type { Prisma } from "@/lib/db/client";
import type { RecoveryActionKind } from "@/lib/domain/stages";
import type { UserActor } from "../access/actor";
import type { CaseRow } from "./transition-case";

/** The reviewer's decision, with the reviewer taken from the session, never from the request. */
export function recordDecision(
  tx: Prisma.TransactionClient,
  input: { row: CaseRow; actor: UserActor; kind: string; evidence: string; actionKind?: RecoveryActionKind },
) {
  return tx.decision.create({
    data: {
      caseId: input.row.id,
      episode: input.row.episode,
      kind: input.kind,
      actionKind: input.actionKind ?? null,
      reviewerId: input.actor.userId,
      evidence: input.evidence,
    },
  });
}
