import type { z } from "zod";
import { AppError } from "@/lib/errors";
import { inspectJson, MAX_JSON_DEPTH, replaceUnstorable, UNSTORABLE_MESSAGE } from "@/lib/validation/nul";
import { parseInput } from "@/lib/validation/parse-input";
import type { ApiRequest } from "./api-request";

export const MAX_BODY_BYTES = 64 * 1024;
/**
 * A provider's webhook carries what the provider keeps of the job: Replicate's prediction echoes its
 * input and its logs, so a real one outgrows a producer's 64 KB. Refusing it would lose the event
 * after the provider's retries, so provider routes read up to 2 MiB (docs/providers.md, "Webhook sizes").
 */
export const PROVIDER_WEBHOOK_MAX_BYTES = 2 * 1024 * 1024;

/** JSON only, 64 KB at most (checked while reading, not only from Content-Length), then the schema. */
export async function readJsonBody<S extends z.ZodType>(req: ApiRequest, schema: S): Promise<z.infer<S>> {
  return parseJsonBody(await readJsonText(req), schema);
}

/** The body's text, as sent: what a provider's signature covers, read before anything parses it. */
export async function readJsonText(req: ApiRequest, limit = MAX_BODY_BYTES): Promise<string> {
  const type = req.header("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new AppError("unsupported_media_type", "Send the body as application/json.");
  }
  const declared = Number(req.header("content-length") ?? "0");
  if (declared > limit) throw tooLarge(limit);
  return readLimited(req, limit);
}

const tooLarge = (limit: number) =>
  new AppError(
    "payload_too_large",
    `The body is larger than ${limit >= 1024 * 1024 ? `${limit / (1024 * 1024)} MiB` : `${limit / 1024} KB`}.`,
  );

/**
 * Parses and validates a body. Text PostgreSQL cannot store is refused (`refuse`, what a producer
 * sends: it can send again without it) or replaced by U+FFFD (`replace`, a provider's signed webhook,
 * which cannot be sent differently and whose odd bytes sit in fields the product does not keep).
 */
export function parseJsonBody<S extends z.ZodType>(
  text: string,
  schema: S,
  unstorable: "refuse" | "replace" = "refuse",
): z.infer<S> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError("invalid_request", "The body is not valid JSON.");
  }
  const found = inspectJson(value);
  if (found.tooDeep) throw new AppError("invalid_request", `The body nests deeper than ${MAX_JSON_DEPTH} levels.`);
  if (found.unstorable && unstorable === "refuse") throw new AppError("invalid_request", UNSTORABLE_MESSAGE);
  return parseInput(
    schema,
    found.unstorable ? replaceUnstorable(value) : value,
    "The request does not match the schema.",
  );
}

/**
 * The one byte-limited body reader, for both transports (a Fetch body through Next.js, a Node
 * request through the HTTP entry): the bytes, or `too_large` as soon as more than `limit` have
 * arrived. Leaving the loop stops the source, so the rest of an oversized body is never read.
 */
export async function readLimitedBody(
  chunks: AsyncIterable<Uint8Array>,
  limit: number,
): Promise<Uint8Array | "too_large"> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    size += chunk.byteLength;
    if (size > limit) return "too_large";
    parts.push(chunk);
  }
  return parts.length === 1 && parts[0] ? parts[0] : Buffer.concat(parts);
}

async function readLimited(req: ApiRequest, limit: number): Promise<string> {
  const bytes = await readLimitedBody(req.body(), limit).catch(() => {
    throw new AppError("invalid_request", "The body could not be read.");
  });
  if (bytes === "too_large") throw tooLarge(limit);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new AppError("invalid_request", "The body is not valid UTF-8.");
  }
}
