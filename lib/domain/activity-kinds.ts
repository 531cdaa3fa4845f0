/**
 * The global activity feed's kinds (decision 066): changes to people, access, settings, alerts,
 * retention and limits, which the audit writer puts on the system chain (decision 059). Each kind
 * has its sentence in timeline-words' SETTINGS_SENTENCES; a filter picks one group.
 */
export const ACTIVITY_GROUPS = {
  people: [
    "user_created",
    "user_roles_changed",
    "user_password_reset",
    "user_deactivated",
    "user_reactivated",
    "user_sessions_ended",
    "user_identity_linked",
  ],
  scope: ["user_producers_changed"],
  keys: ["token_created", "token_revoked"],
  settings: [
    "console_settings_updated",
    "price_created",
    "price_updated",
    "price_deleted",
    "provider_setting_updated",
    "provider_pace_updated",
    "provider_breaker_tripped",
    "provider_breaker_updated",
    "provider_breaker_resumed",
    "endpoint_created",
    "endpoint_updated",
    "endpoint_disabled",
    "endpoint_enabled",
    "endpoint_secret_rotated",
  ],
  alerts: ["alert_rule_created", "alert_rule_updated", "alert_destination_created", "alert_destination_updated"],
  retention: ["retention_policy_updated"],
  limits: ["spend_limit_set", "spend_limit_cleared"],
  // Decision 073: an import of a provider's usage, which can correct any producer's charges.
  // Decision 074: charges no operation explains, swept from the providers' lists and explained by finance.
  // Decision 084: a job finance moved from the send that claimed it to the send that made it.
  usage: [
    "usage_imported",
    "provider_jobs_swept",
    "unexplained_charge_attached",
    "unexplained_charge_known_outside",
    "provider_job_moved",
  ],
} as const satisfies Record<string, readonly string[]>;

export type ActivityGroup = keyof typeof ACTIVITY_GROUPS;
export const ACTIVITY_GROUP_NAMES = Object.keys(ACTIVITY_GROUPS) as ActivityGroup[];

export const ACTIVITY_GROUP_WORDS: Record<ActivityGroup, string> = {
  people: "People",
  scope: "Producer scope",
  keys: "Access tokens",
  settings: "Settings and providers",
  alerts: "Alerts",
  retention: "Retention",
  limits: "Spend limits",
  usage: "Provider usage",
};

export const ALL_ACTIVITY_KINDS: string[] = Object.values(ACTIVITY_GROUPS).flat();

export function isActivityGroup(value: unknown): value is ActivityGroup {
  return typeof value === "string" && Object.hasOwn(ACTIVITY_GROUPS, value);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * What a change was about, for the feed's "About" column: the person's email, the producer, the
 * provider, the rule's or key's name. Never an ID: a person reads names.
 */
export function activitySubject(...facts: unknown[]): string | null {
  for (const value of facts) {
    if (!value || typeof value !== "object") continue;
    const record = value as Record<string, unknown>;
    for (const key of ["email", "name", "label", "producer", "provider", "scope"]) {
      const found = record[key];
      if (typeof found === "string" && found.trim() !== "" && !UUID.test(found)) return found;
    }
  }
  return null;
}
