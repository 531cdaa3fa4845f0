import { ACTION_WORDS } from "./timeline-words";

/**
 * An audit event's evidence as labelled facts a person reads (the timeline's "Details"). The keys a
 * worker keeps for its own bookkeeping (the action it ran, its claim's fencing token) are left to
 * the stored record, which the console shows apart, as stored.
 */
export type EventField = { key: string; label: string; value: string; time: boolean };

const INTERNAL_KEYS = new Set(["actionId", "fencingToken"]);

const FIELD_LABEL: Record<string, string> = {
  kind: "Result",
  action: "Recovery",
  outcome: "Outcome",
  providerJobId: "Provider job",
  providerJobIds: "Provider jobs",
  holdId: "Hold",
  requestId: "Replacement request",
  assigneeId: "Assigned to (user)",
  previousAssigneeId: "Previously assigned to (user)",
  webhookIds: "Notifications",
  eventTypes: "Notification events",
  packetId: "Evidence packet",
  keyId: "Signing key",
  sha256: "SHA-256",
  count: "Jobs found",
  bound: "Limit reached",
  nextCheckAt: "Next status check",
  bulkPreviewId: "Bulk decision",
  door: "Reported through",
  webhookId: "Provider webhook",
  ownerCaseId: "Owning case",
  attributedTo: "Attributed to",
  elapsedSeconds: "Seconds elapsed",
  maxAttempts: "Attempts allowed",
  maxSeconds: "Seconds allowed",
};

/** Values under these keys are stored codes (`resume_poll`, `not_found`): read as words. */
const CODE_KEYS = new Set(["kind", "action", "stage", "state", "outcome", "status", "scope", "door", "limit"]);
const ISO_MOMENT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const NUMBER = new Intl.NumberFormat("en-GB");

/** "nextCheckAt" -> "Next check at", "providerJobId" -> "Provider job ID". */
export function fieldLabel(key: string): string {
  const known = FIELD_LABEL[key];
  if (known) return known;
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replaceAll("_", " ")
    .toLowerCase()
    .replace(/\bid\b/g, "ID");
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}`;
}

function valueText(key: string, value: unknown): string {
  if (typeof value === "string") {
    if (key === "action" && Object.hasOwn(ACTION_WORDS, value)) return ACTION_WORDS[value] as string;
    return CODE_KEYS.has(key) ? value.replaceAll("_", " ") : value;
  }
  if (typeof value === "number") return NUMBER.format(value);
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (Array.isArray(value)) return value.map((item) => valueText(key, item)).join(", ");
  if (value && typeof value === "object") {
    return Object.entries(value)
      .filter(([k, v]) => v !== null && v !== undefined && !INTERNAL_KEYS.has(k))
      .map(([k, v]) => `${fieldLabel(k).toLowerCase()}: ${valueText(k, v)}`)
      .join("; ");
  }
  return String(value);
}

/**
 * The facts of an event's evidence, in stored order; `said` (the text already shown as the event's
 * words) is not repeated, and empty values are left out.
 */
export function eventFields(evidence: unknown, said: string | null): EventField[] {
  if (!evidence || typeof evidence !== "object" || Array.isArray(evidence)) return [];
  return Object.entries(evidence as Record<string, unknown>)
    .filter(([key, value]) => value !== null && value !== undefined && value !== "" && !INTERNAL_KEYS.has(key))
    .filter(([, value]) => !(said !== null && value === said))
    .map(([key, value]) => ({
      key,
      label: fieldLabel(key),
      value: valueText(key, value),
      time: typeof value === "string" && ISO_MOMENT.test(value),
    }));
}
