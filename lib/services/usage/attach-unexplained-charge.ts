import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import type { AttachUnexplainedInput } from "@/lib/validation/usage";
import { requirePermission, requireUnscoped } from "../access/actor";
import { keepingRefusedClaims } from "../case/job-owner";
import { lockOpenCharge, resolveListedJob } from "./open-charge";
import { rematchUsageLines } from "./rematch-usage-lines";
import { joinJobToSend, sendOfCase } from "./send-of-case";

/**
 * Finance attaches a job no operation owned to the send that created it (decisions 074, 080). To
 * the uncertain submission of a parked case (the attempt named, or the case's current one) it is
 * the ordinary reconcile decision on that case (same checks, transition, decision row and audit);
 * to an earlier send of an operation whose case went on without its job, the job is recorded on
 * that attempt and the case stays where it is. Either way the ownership rule every door shares
 * (rule 17) refuses a job another attempt owns or the provider's evidence ties elsewhere, and a
 * refused claim is kept after the rollback (decision 039). In the same transaction the listed job
 * is resolved and the job's usage lines are matched to the attempt's hold, which settles, is
 * corrected, or is charged after its release, at the provider's charge (decision 073, rule 18).
 * The charge names no producer, so only a person who sees every producer may (decision 035).
 */
export async function attachUnexplainedCharge(db: Db, actor: Principal, input: AttachUnexplainedInput) {
  const user = requireUnscoped(requirePermission(actor, "usage:import"));
  return keepingRefusedClaims(db, user, () =>
    inTransaction(db, async (tx) => {
      const charge = await lockOpenCharge(tx, input);
      const target = await sendOfCase(tx, input);
      const result = await joinJobToSend(tx, user, target, input);
      if (charge.listedJob !== null)
        await resolveListedJob(tx, user, charge.listedJob, {
          resolution: "attached",
          reason: input.evidence,
          attemptRef: target.send.attemptRef,
        });
      const matched = await rematchUsageLines(tx, user, input);
      await recordAudit(tx, {
        actor: user,
        kind: "unexplained_charge_attached",
        // On the case's timeline when the case itself did not move (its reconcile decision is there otherwise).
        ...(target.earlier ? { caseId: input.caseId, episode: target.episode } : {}),
        after: {
          provider: input.provider,
          providerJobId: input.providerJobId,
          caseId: input.caseId,
          attemptId: target.send.attemptId,
          caseWent: target.earlier ? "stayed" : "reconciled",
          linesMatched: matched,
          listed: charge.listedJob !== null,
        },
        evidence: { text: input.evidence },
      });
      return { ...result, provider: input.provider, providerJobId: input.providerJobId, linesMatched: matched };
    }),
  );
}
