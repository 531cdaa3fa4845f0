import { boundEvidence, boundReached, nextAttemptWithinBound } from "@/lib/domain/action-bound";
import type { ProviderName } from "@/lib/providers/types";
import type { ClaimedAction } from "@/lib/services/claim/claim-actions";
import { checksUnderAction } from "@/lib/services/claim/earlier-checks";
import type { FinishResult } from "@/lib/services/claim/finish-action";
import { actionBoundsFrom } from "./action-bounds";
import { type EndingVerdict, finishResultOf } from "./finish-result";
import type { WorkerContext } from "./worker-context";

/**
 * How a verdict ends the claim, within the action's bound (DESIGN rule 19). An answer that asks for
 * another attempt (still running, throttled) gets one while the bound allows it, never later than
 * the bound's end; past it the action stops and its case goes back to a reviewer with every check
 * it made as evidence and the next steps its stage permits, instead of being checked again.
 */
export async function boundedFinishResult(
  ctx: WorkerContext,
  claimed: ClaimedAction,
  verdict: EndingVerdict,
): Promise<FinishResult> {
  const now = ctx.now?.() ?? new Date();
  const result = finishResultOf(verdict, ctx, now.getTime());
  if (result.kind !== "rescheduled") return result;
  const bounds = ctx.actionBounds ?? actionBoundsFrom({}, ctx.pollBaseSeconds);
  const bound = bounds[claimed.provider as ProviderName];
  // A provider without a bound has no adapter either: its case was parked before anything was asked.
  if (!bound) throw new Error(`unreachable: no action bound for provider "${claimed.provider}"`);
  const { approvedAt } = claimed;
  const reached = boundReached(bound, { attempts: claimed.claimCount, approvedAt, now });
  if (!reached) return { ...result, nextCheckAt: nextAttemptWithinBound(result.nextCheckAt, approvedAt, bound) };
  return {
    kind: "unresolved",
    evidence: boundEvidence(claimed.kind, claimed.stage, reached, result.evidence),
    bound: reached,
    checks: await checksUnderAction(ctx.db, claimed.caseId, claimed.actionId),
  };
}
