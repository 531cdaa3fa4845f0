import { sanitise } from "@/lib/domain/sanitise";
import { isHttpUrl, isObject } from "./json";
import type { JobStatus, OutputRef } from "./types";

/**
 * A `data:` URI (RFC 2397): the provider handed back the file itself rather than a place to fetch it
 * (Replicate's and fal's sync modes do). The download decodes it without any network fetch.
 */
export const isDataUri = (value: unknown): value is string =>
  typeof value === "string" && /^data:[^,]*,/i.test(value.slice(0, 256));

/** Something a download can serve: an http(s) URL (fetched under the host allow-list) or a `data:` URI. */
export const isOutputUrl = (value: unknown): value is string => isHttpUrl(value) || isDataUri(value);

/**
 * Base64 bytes given inline (Veo's `encodedVideo`, fal's `file_data`) as a `data:` URI, so every
 * output takes one form from here on. The media type is kept only when it looks like one.
 */
export function inlineOutputUrl(base64: string, mediaType?: string): string {
  const type = mediaType && /^[\w.+-]+\/[\w.+-]+$/.test(mediaType) ? mediaType : "application/octet-stream";
  return `data:${type};base64,${base64}`;
}

/** Nested outputs deeper than this are not looked for: no documented shape comes close. */
export const MAX_OUTPUT_DEPTH = 8;
/** Values visited in one answer, so a huge payload cannot make the walk expensive. */
const MAX_VALUES_VISITED = 5000;

/**
 * Every string in `value` that `accept` takes, in document order, at any depth up to the bound:
 * a string, a list, a list of lists, an object whose values are any of these. This is how
 * Replicate's own client walks a prediction's `output` (it transforms every leaf string).
 */
export function stringsWithin(value: unknown, accept: (text: string) => boolean): string[] {
  const found: string[] = [];
  let visited = 0;
  const walk = (node: unknown, depth: number) => {
    visited += 1;
    if (visited > MAX_VALUES_VISITED || depth > MAX_OUTPUT_DEPTH) return;
    if (typeof node === "string") {
      if (accept(node)) found.push(node);
    } else if (Array.isArray(node)) {
      for (const item of node) walk(item, depth + 1);
    } else if (isObject(node)) {
      for (const item of Object.values(node)) walk(item, depth + 1);
    }
  };
  walk(value, 0);
  return found;
}

/** Keys whose values may hold a producer's prompt, which evidence never keeps (docs/design.md rule 10). */
const PROMPT_KEY = /prompt/i;

/**
 * The part of a completed answer that named no readable output, as evidence for the person who
 * decides: bounded well below the observation's own limits, prompts dropped, and sanitised (signed
 * URL queries and secrets removed). The observation sanitises it again as it stores it.
 */
export function unreadableAnswer(value: unknown): unknown {
  const withoutPrompts = (node: unknown, depth: number): unknown => {
    if (depth > MAX_OUTPUT_DEPTH) return "[truncated: too deep]";
    if (Array.isArray(node)) return node.slice(0, 20).map((item) => withoutPrompts(item, depth + 1));
    if (!isObject(node)) return node;
    const entries = Object.entries(node).filter(([key]) => !PROMPT_KEY.test(key));
    return Object.fromEntries(entries.map(([key, item]) => [key, withoutPrompts(item, depth + 1)]));
  };
  const copy = sanitise(withoutPrompts(value, 0), { maxStringLength: 300, maxNodes: 200, maxDepth: 6 });
  return copy === undefined ? null : copy;
}

/**
 * An output's address as evidence keeps it: a URL as it is (sanitising strips its signed query), a
 * `data:` URI by its media type and size only, since its text is the file itself.
 */
export function outputUrlForEvidence(url: string): string {
  if (!isDataUri(url)) return url;
  const comma = url.indexOf(",");
  const header = url.slice(5, comma);
  const encoded = url.length - comma - 1;
  const padding = url.endsWith("==") ? 2 : url.endsWith("=") ? 1 : 0;
  const bytes = /;base64/i.test(header) ? Math.floor((encoded * 3) / 4) - padding : encoded;
  return `data:${header.split(";")[0] || "text/plain"} (about ${bytes} bytes given inline)`;
}

/**
 * A provider's answer as an observation or a kept webhook stores it, evidence included (filter
 * reasons, credits, an answer whose outputs could not be read); inline bytes are described, not stored.
 */
export function statusForEvidence(status: JobStatus): JobStatus {
  if (status.kind !== "completed") return status;
  return { ...status, outputs: status.outputs.map((o) => ({ ...o, url: outputUrlForEvidence(o.url) })) };
}

/**
 * The outputs fetched from a URL, each with its place in the answer, as the tables that keep URLs
 * store them (`output_urls`, `vault_copies`); bytes given inline (`data:` URIs) are left out.
 */
export function fetchableOutputs(outputs: readonly OutputRef[]) {
  return outputs.flatMap((output, outputIndex) =>
    isHttpUrl(output.url)
      ? [
          {
            outputIndex,
            url: output.url,
            contentType: output.contentType ?? null,
            size: output.size ?? null,
            expiresAt: output.expiresAt ?? null,
          },
        ]
      : [],
  );
}
