/** Narrowing helpers for provider JSON, which is untrusted until a transform has read it. */
export type JsonObject = Record<string, unknown>;

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export const nonEmptyText = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : undefined;

export const isHttpUrl = (value: unknown): value is string => typeof value === "string" && /^https?:\/\//i.test(value);
