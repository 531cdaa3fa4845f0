import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { requirePermission } from "../access/actor";

/** A destination as pages and the API show it: never its secret, and of a Slack URL (a credential) only the host. */
export function publicDestination(destination: {
  id: string;
  name: string;
  kind: "webhook" | "slack";
  url: string;
  disabledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}) {
  const url = destination.kind === "slack" ? `${new URL(destination.url).origin}/…` : destination.url;
  return {
    id: destination.id,
    name: destination.name,
    kind: destination.kind,
    url,
    disabled: destination.disabledAt !== null,
    createdAt: destination.createdAt.toISOString(),
    updatedAt: destination.updatedAt.toISOString(),
  };
}
export type PublicAlertDestination = ReturnType<typeof publicDestination>;

export function publicRule(rule: {
  id: string;
  name: string;
  kind: string;
  thresholdCount: number;
  thresholdMicros: bigint | null;
  thresholdCurrency: string | null;
  windowMinutes: number;
  renotifyMinutes: number;
  destinationId: string;
  enabled: boolean;
  updatedAt: Date;
}) {
  return {
    id: rule.id,
    name: rule.name,
    kind: rule.kind,
    thresholdCount: rule.thresholdCount,
    thresholdMicros: rule.thresholdMicros === null ? null : Number(rule.thresholdMicros),
    thresholdCurrency: rule.thresholdCurrency,
    windowMinutes: rule.windowMinutes,
    renotifyMinutes: rule.renotifyMinutes,
    destinationId: rule.destinationId,
    enabled: rule.enabled,
    updatedAt: rule.updatedAt.toISOString(),
  };
}
export type PublicAlertRule = ReturnType<typeof publicRule>;

/** Every rule and destination, for the admin page and `GET /api/v1/alerts/settings`. */
export async function listAlertSettings(db: Db, actor: Principal) {
  requirePermission(actor, "admin:settings");
  const [destinations, rules] = await Promise.all([
    db.alertDestination.findMany({ orderBy: { name: "asc" } }),
    db.alertRule.findMany({ orderBy: { name: "asc" } }),
  ]);
  return { destinations: destinations.map(publicDestination), rules: rules.map(publicRule) };
}
