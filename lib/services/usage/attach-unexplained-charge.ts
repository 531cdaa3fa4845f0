import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import type { AttachUnexplainedInput } from "@/lib/validation/usage";
import { requirePermission, requireUnscoped } from "../access/actor";
import { keepingRefusedClaims } from "../case/job-owner";
import { reconcileInTransaction } from "../case/reconcile-case";
import { lockOpenCharge, resolveListedJob } from "./open-charge";
import { rematchUsageLines } from "./rematch-usage-lines";

/**
 * Finance attaches a job no operation owned to the uncertain submission that created it (decision
 * 074): the ordinary reconcile decision on that case (same checks, transition, decision row and
 * audit), so the ownership rule every door shares (rule 17) refuses a job another attempt owns or
 * the provider's evidence ties elsewhere; a refused claim is kept after the rollback (decision
 * 039). In the same transaction the listed job is resolved and the job's usage lines are matched to
 * the case's hold, which settles or corrects at the provider's charge (decision 073). The charge
 * names no producer, so only a person who sees every producer may (decision 035).
 */
export async function attachUnexplainedCharge(db: Db, actor: Principal, input: AttachUnexplainedInput) {
  const user = requireUnscoped(requirePermission(actor, "usage:import"));
  return keepingRefusedClaims(db, user, () =>
    inTransaction(db, async (tx) => {
      const charge = await lockOpenCharge(tx, input);
      const kase = await tx.case.findUnique({ where: { id: input.caseId }, select: { provider: true } });
      if (!kase) throw new AppError("not_found", "No such case.");
      if (kase.provider !== input.provider)
        throw new AppError(
          "invalid_request",
          `That case's submission went to ${kase.provider}, not ${input.provider}.`,
        );
      const result = await reconcileInTransaction(tx, user, input.caseId, {
        verdict: "attach",
        providerJobId: input.providerJobId,
        evidence: input.evidence,
      });
      const attempt = await tx.attempt.findUniqueOrThrow({
        where: { provider_providerJobId: { provider: input.provider, providerJobId: input.providerJobId } },
        select: { id: true },
      });
      if (charge.listedJob !== null)
        await resolveListedJob(tx, user, charge.listedJob, {
          resolution: "attached",
          reason: input.evidence,
          attemptRef: attempt.id,
        });
      const matched = await rematchUsageLines(tx, user, input);
      await recordAudit(tx, {
        actor: user,
        kind: "unexplained_charge_attached",
        after: {
          provider: input.provider,
          providerJobId: input.providerJobId,
          caseId: input.caseId,
          linesMatched: matched,
          listed: charge.listedJob !== null,
        },
        evidence: { text: input.evidence },
      });
      return { ...result, provider: input.provider, providerJobId: input.providerJobId, linesMatched: matched };
    }),
  );
}
