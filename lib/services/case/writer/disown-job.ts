import { recordAudit } from "@/lib/audit/writer";
import type { Prisma } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import type { CaseState, Stage } from "@/lib/domain/stages";
import { AppError } from "@/lib/errors";
import { supersedeLiveAction } from "../../claim/writer/actions";

type OpenCase = {
  id: string;
  episode: number;
  stage: Stage;
  state: CaseState;
  version: number;
  providerJobId: string | null;
};

/**
 * A case whose job turned out to be another operation's. Open (decision 038: the provider's evidence
 * showed it; decision 084: finance moved the job to the send that made it): its pending action is
 * superseded, and the case goes back to an uncertain submission without a job; its hold stays held,
 * since which job its send made is a reviewer's question again. Resolved (decision 084): it keeps its
 * outcome (what was done with the job, a delivery included, happened) and names no job any more.
 * Either way compare-and-set on its version, with its audit row naming the job and why it lost it.
 */
export async function disownCaseJob(
  tx: Prisma.TransactionClient,
  actor: Principal,
  kase: OpenCase,
  evidence: { text: string; providerJobId: string },
): Promise<void> {
  const resolved = kase.state === "resolved";
  if (!resolved) await supersedeLiveAction(tx, kase.id, "provider job disowned: it is another operation's");
  const after = resolved
    ? { stage: kase.stage, state: kase.state }
    : { stage: "submission_uncertain" as const, state: "parked" as const };
  const moved = await tx.case.updateMany({
    where: { id: kase.id, version: kase.version, state: kase.state },
    data: { ...after, providerJobId: null, version: { increment: 1 } },
  });
  if (moved.count !== 1) throw new AppError("lost_race", "The case changed while its job was moved.");
  await recordAudit(tx, {
    actor,
    kind: "provider_job_disowned",
    caseId: kase.id,
    episode: kase.episode,
    before: { stage: kase.stage, state: kase.state, providerJobId: kase.providerJobId, version: kase.version },
    after: { ...after, providerJobId: null, version: kase.version + 1 },
    evidence,
  });
}
