import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { isUniqueViolation } from "@/lib/db/unique-violation";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import type { SaveAlertRuleInput } from "@/lib/validation/alerts";
import { requirePermission } from "../access/actor";
import { makeAlertRoundDue } from "./alert-schedule";
import { endOpenEpisodes } from "./end-open-episodes";
import { publicRule } from "./list-alert-settings";

/**
 * Creates an alert rule or changes one, and makes the next alert round due, so the rule is judged
 * as saved on the next tick. A rule with new thresholds, window or interval keeps its open episode:
 * the round judges it by the new settings, and resolves it if it no longer holds. A rule disabled,
 * or given another kind or destination, ends its open episode quietly (endOpenEpisodes): the
 * condition did not clear, and the new definition starts an episode of its own.
 */
export async function saveAlertRule(db: Db, actor: Principal, input: SaveAlertRuleInput) {
  const admin = requirePermission(actor, "admin:settings");
  const data = {
    name: input.name,
    kind: input.kind,
    thresholdCount: input.thresholdCount,
    thresholdMicros: input.thresholdAmount === null ? null : BigInt(input.thresholdAmount),
    thresholdCurrency: input.thresholdAmount === null ? null : input.thresholdCurrency,
    windowMinutes: input.windowMinutes,
    renotifyMinutes: input.renotifyMinutes,
    destinationId: input.destinationId,
    enabled: input.enabled,
  };
  try {
    return await inTransaction(db, async (tx) => {
      const destination = await tx.alertDestination.findUnique({ where: { id: input.destinationId } });
      if (!destination) {
        throw new AppError("invalid_request", "Check the highlighted fields.", {
          issues: [{ path: "destinationId", message: "no such alert destination" }],
        });
      }
      if (!input.id) {
        const rule = publicRule(await tx.alertRule.create({ data }));
        await makeAlertRoundDue(tx);
        await recordAudit(tx, { actor: admin, kind: "alert_rule_created", after: rule });
        return rule;
      }
      const existing = await tx.alertRule.findUnique({ where: { id: input.id } });
      if (!existing) throw new AppError("not_found", "No such alert rule.");
      const rule = publicRule(await tx.alertRule.update({ where: { id: existing.id }, data }));
      if (!rule.enabled || rule.kind !== existing.kind || rule.destinationId !== existing.destinationId) {
        await endOpenEpisodes(tx, { ruleId: rule.id });
      }
      await makeAlertRoundDue(tx);
      await recordAudit(tx, { actor: admin, kind: "alert_rule_updated", before: publicRule(existing), after: rule });
      return rule;
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new AppError("conflict", "Another alert rule already has this name.", {
        issues: [{ path: "name", message: "already in use" }],
      });
    }
    throw error;
  }
}
