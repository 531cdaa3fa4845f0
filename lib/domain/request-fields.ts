import { type EventField, eventFields } from "./event-fields";
import { isPromptKey } from "./prompt-key";

/**
 * A sanitised request summary as labelled facts a person reads ("Prompt: 26 characters",
 * "Duration: 5 s"), and the one-line gist of it ("Prompt: 26 characters, 1080p, 5 s"). The stored
 * summary itself (digests and all) stays in the case's raw technical details.
 */
const NUMBER = new Intl.NumberFormat("en-GB");
const DURATION_KEY = /^(duration|duration_?s(ec(ond)?s?)?|seconds|length_?seconds)$/i;
const RESOLUTION_KEY = /^(resolution|size|quality)$/i;

function promptText(value: unknown): string | null {
  if (typeof value === "string") return `${NUMBER.format([...value].length)} characters`;
  if (value && typeof value === "object" && "length" in value && typeof value.length === "number") {
    // A digest stands in for the prompt (prompts are not stored unless the operator chose to).
    return `${NUMBER.format(value.length)} characters`;
  }
  return null;
}

export function requestFields(summary: unknown): EventField[] {
  if (!summary || typeof summary !== "object" || Array.isArray(summary)) return [];
  const fields: EventField[] = [];
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(summary as Record<string, unknown>)) {
    const prompt = isPromptKey(key) ? promptText(value) : null;
    if (prompt !== null) {
      fields.push({ key, label: key.toLowerCase() === "prompt" ? "Prompt" : labelOf(key), value: prompt, time: false });
    } else if (DURATION_KEY.test(key) && typeof value === "number") {
      fields.push({ key, label: "Duration", value: `${NUMBER.format(value)} s`, time: false });
    } else if (RESOLUTION_KEY.test(key) && typeof value === "string") {
      fields.push({ key, label: "Resolution", value, time: false });
    } else {
      rest[key] = value;
    }
  }
  return [...fields, ...eventFields(rest, null)];
}

function labelOf(key: string): string {
  return eventFields({ [key]: "x" }, null)[0]?.label ?? key;
}

/** "Prompt: 26 characters, 1080p, 5 s": the request at a glance, or null when it names none of these. */
export function requestGist(summary: unknown): string | null {
  const fields = requestFields(summary);
  const prompt = fields.find((f) => f.label === "Prompt");
  const parts = [
    prompt ? `Prompt: ${prompt.value}` : null,
    fields.find((f) => f.label === "Resolution")?.value ?? null,
    fields.find((f) => f.label === "Duration")?.value ?? null,
  ].filter((part): part is string => part !== null);
  return parts.length > 0 ? parts.join(", ") : null;
}
