import type { Db } from "@/lib/db/client";
import type { AlertFigures } from "@/lib/domain/alert-rules";
import type { Principal } from "@/lib/domain/principal";
import type { ListAlertFiringsQuery } from "@/lib/validation/alerts";
import { requirePermission, requireUnscoped } from "../access/actor";

/**
 * Every firing, newest first, with its figures and how its messages fared: what an operator reads
 * to learn what was alerted and whether anybody was told. Anyone who can read cases may see them.
 */
export async function listAlertFirings(db: Db, actor: Principal, input: ListAlertFiringsQuery) {
  // Alerts count every producer together, so they are for people who see every producer (decision 035).
  requireUnscoped(requirePermission(actor, "case:read"));
  const firings = await db.alertFiring.findMany({
    where: input.ruleId ? { ruleId: input.ruleId } : {},
    orderBy: [{ startedAt: "desc" }, { id: "desc" }],
    take: input.limit,
    include: {
      rule: { select: { name: true, kind: true } },
      messages: { select: { deliveredAt: true, giveUpAt: true } },
    },
  });
  return firings.map((firing) => ({
    id: firing.id,
    ruleId: firing.ruleId,
    ruleName: firing.rule.name,
    kind: firing.rule.kind,
    status: firing.resolvedAt ? ("resolved" as const) : ("firing" as const),
    startedAt: firing.startedAt.toISOString(),
    resolvedAt: firing.resolvedAt?.toISOString() ?? null,
    lastNotifiedAt: firing.lastNotifiedAt.toISOString(),
    notifications: firing.notifications,
    figures: firing.figures as AlertFigures,
    lastFigures: firing.lastFigures as AlertFigures,
    messages: {
      delivered: firing.messages.filter((m) => m.deliveredAt).length,
      failed: firing.messages.filter((m) => m.giveUpAt).length,
      pending: firing.messages.filter((m) => !m.deliveredAt && !m.giveUpAt).length,
    },
  }));
}
export type AlertFiringItem = Awaited<ReturnType<typeof listAlertFirings>>[number];
