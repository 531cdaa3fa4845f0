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
 * A case whose job the provider's evidence shows to be another operation's (decision 038): its
 * pending action is superseded, and the case goes back to an uncertain submission without a job,
 * compare-and-set on its version, with its audit row. Its hold stays held: which job its send made
 * is a reviewer's question again.
 */
export async function disownCaseJob(
  tx: Prisma.TransactionClient,
  actor: Principal,
  kase: OpenCase,
  evidence: { text: string; providerJobId: string },
): Promise<void> {
  await supersedeLiveAction(
    tx,
    kase.id,
    "provider job disowned: the provider's evidence shows it is another operation's",
  );
  const moved = await tx.case.updateMany({
    where: { id: kase.id, version: kase.version, state: kase.state },
    data: { stage: "submission_uncertain", state: "parked", providerJobId: null, version: { increment: 1 } },
  });
  if (moved.count !== 1) throw new AppError("lost_race", "The holder's case changed while the job was moved.");
  await recordAudit(tx, {
    actor,
    kind: "provider_job_disowned",
    caseId: kase.id,
    episode: kase.episode,
    before: { stage: kase.stage, state: kase.state, providerJobId: kase.providerJobId, version: kase.version },
    after: { stage: "submission_uncertain", state: "parked", providerJobId: null, version: kase.version + 1 },
    evidence,
  });
}
