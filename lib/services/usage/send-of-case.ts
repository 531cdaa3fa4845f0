import type { Prisma } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import type { UserActor } from "../access/actor";
import { reconcileInTransaction } from "../case/reconcile-case";
import { attachChargeToEarlierSend, type EarlierSend } from "./attach-charge-to-earlier-send";

/** The send finance names for a job: a case, and one of its operation's attempts (its current one if none). */
export type SendKey = { caseId: string; attemptId?: string | undefined; provider: string };

export type CaseSend = {
  send: EarlierSend;
  /** Not the case's open question: recording the job there leaves the case where it is. */
  earlier: boolean;
  stage: string;
  state: string;
  episode: number;
};

/**
 * Which attempt a job joins, and how (decisions 080, 084): the case's current attempt unless another
 * is named; the reconcile decision when that is the case's open question (a parked uncertain
 * submission, or refused by the transition rules while someone works on it), else the earlier-send path.
 */
export async function sendOfCase(tx: Prisma.TransactionClient, key: SendKey): Promise<CaseSend> {
  const kase = await tx.case.findUnique({
    where: { id: key.caseId },
    select: { provider: true, operationRef: true, attemptRef: true, stage: true, state: true, episode: true },
  });
  if (!kase) throw new AppError("not_found", "No such case.");
  if (kase.provider !== key.provider)
    throw new AppError("invalid_request", `That case's submission went to ${kase.provider}, not ${key.provider}.`);
  const attempt = await tx.attempt.findFirst({
    where: key.attemptId ? { operationRef: kase.operationRef, attemptId: key.attemptId } : { id: kase.attemptRef },
    select: { id: true, attemptId: true, provider: true },
  });
  if (!attempt) throw new AppError("not_found", `That case's operation has no attempt ${key.attemptId ?? ""}.`.trim());
  if (attempt.provider !== key.provider)
    throw new AppError(
      "invalid_request",
      `Attempt ${attempt.attemptId} went to ${attempt.provider}, not ${key.provider}.`,
    );
  const send = { caseId: key.caseId, attemptRef: attempt.id, attemptId: attempt.attemptId, provider: key.provider };
  const earlier = attempt.id !== kase.attemptRef || kase.state === "resolved";
  return { send, earlier, stage: kase.stage, state: kase.state, episode: kase.episode };
}

/**
 * Records the job on the send through the ownership rule (rule 17): the case's reconcile decision
 * when the send is its open question, else on the earlier attempt with the case left where it is.
 */
export async function joinJobToSend(
  tx: Prisma.TransactionClient,
  user: UserActor,
  target: CaseSend,
  job: { providerJobId: string; evidence: string },
): Promise<{ caseId: string; stage: string; state: string }> {
  if (!target.earlier)
    return reconcileInTransaction(tx, user, target.send.caseId, {
      verdict: "attach",
      providerJobId: job.providerJobId,
      evidence: job.evidence,
    });
  await attachChargeToEarlierSend(tx, user, target.send, job.providerJobId);
  return { caseId: target.send.caseId, stage: target.stage, state: target.state };
}
