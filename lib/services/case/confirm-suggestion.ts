import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import { requirePermission } from "../access/actor";
import { approveLoaded } from "./approve-case";
import { keepingRefusedClaims } from "./job-owner";
import { reconcileCase } from "./reconcile-case";
import { loadCase } from "./transition-case";

/** `check`: approve the status check of the attached job in the same step (it cannot spend money). */
export type ConfirmSuggestionInput = { suggestionId: string; evidence: string; check?: boolean };

/**
 * A reviewer takes a suggested job as the one the uncertain submission created. The attachment is
 * the ordinary reconcile decision (same checks, same audit); in the same transaction the suggestion
 * becomes `confirmed` and the other open suggestions of the episode `dismissed`. With `check`, the
 * same evidence also approves the status check of the attached job, through the ordinary approval
 * (its own decision and audit row): a status check never buys a video, so one person may take both
 * steps at once (decision 061). If anything refuses, nothing changes.
 */
export async function confirmSuggestion(db: Db, actor: Principal, caseId: string, input: ConfirmSuggestionInput) {
  const user = requirePermission(actor, "case:reconcile");
  if (input.check) requirePermission(actor, "case:approve");
  // The attach is refused inside this transaction, so its refusal is kept after this one rolls back.
  return keepingRefusedClaims(db, user, () =>
    inTransaction(db, async (tx) => {
      const row = await loadCase(tx, caseId, user);
      const suggestion = await tx.reconciliationSuggestion.findUnique({ where: { id: input.suggestionId } });
      if (!suggestion || suggestion.caseId !== caseId) throw new AppError("not_found", "No such suggestion.");
      if (suggestion.status !== "open") {
        throw new AppError("conflict", `This suggestion was already ${suggestion.status}.`);
      }
      if (row.episode !== suggestion.episode) {
        throw new AppError("conflict", "This suggestion belongs to an earlier episode of the case.");
      }
      const result = await reconcileCase(tx, user, caseId, {
        verdict: "attach",
        providerJobId: suggestion.providerJobId,
        evidence: input.evidence,
      });
      const { count } = await tx.reconciliationSuggestion.updateMany({
        where: { id: suggestion.id, status: "open" },
        data: { status: "confirmed" },
      });
      if (count === 0) throw new AppError("lost_race", "Someone else acted on this suggestion first; reload.");
      const dismissed = await tx.reconciliationSuggestion.updateMany({
        where: { caseId, episode: suggestion.episode, status: "open" },
        data: { status: "dismissed" },
      });
      await recordAudit(tx, {
        actor: user,
        kind: "reconciliation_suggestion_confirmed",
        caseId,
        episode: suggestion.episode,
        evidence: {
          suggestionId: suggestion.id,
          providerJobId: suggestion.providerJobId,
          confidence: suggestion.confidence,
          matched: suggestion.matched ?? [],
          othersDismissed: dismissed.count,
        },
      });
      const approved = input.check
        ? await approveLoaded(tx, user, await loadCase(tx, caseId, user), {
            action: "resume_poll",
            evidence: input.evidence,
          })
        : null;
      const checked = approved ? { state: "ready" as const, actionId: approved.actionId } : {};
      return { ...result, ...checked, suggestionId: suggestion.id, providerJobId: suggestion.providerJobId };
    }),
  );
}
