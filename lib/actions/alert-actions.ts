"use server";

import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { webhookAllowListFromEnv } from "@/lib/notify/webhook-allow-list";
import { saveAlertDestination } from "@/lib/services/alert/save-alert-destination";
import { saveAlertRule } from "@/lib/services/alert/save-alert-rule";
import { alertDestinationBody, saveAlertRuleSchema } from "@/lib/validation/alerts";
import { safeAction } from "./safe-action";

// Thin: the service authorises (admin), validates the URL against the allow-list, writes and audits.
// A new webhook destination's signing secret is returned here exactly once.

const PAGES = ["/admin/alerts", "/alerts"];

const saveDestinationRun = safeAction(
  alertDestinationBody,
  (input, actor) => saveAlertDestination(db(), actor, input, { allow: webhookAllowListFromEnv(env()) }),
  { revalidate: () => PAGES },
);
export async function saveAlertDestinationAction(raw: unknown) {
  return saveDestinationRun(raw);
}

const saveRuleRun = safeAction(saveAlertRuleSchema, (input, actor) => saveAlertRule(db(), actor, input), {
  revalidate: () => PAGES,
});
export async function saveAlertRuleAction(raw: unknown) {
  return saveRuleRun(raw);
}
