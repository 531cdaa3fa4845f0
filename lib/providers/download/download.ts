import { createHash } from "node:crypto";
import { once } from "node:events";
import type { Writable } from "node:stream";
import { finished } from "node:stream/promises";
import { chunksOf } from "../http/chunks";
import { describeFetchError } from "../http/errors";
import { isDataUri } from "../outputs";
import type { DownloadFailure, DownloadResult } from "../types";
import { declaredSha256 } from "./digest";
import { checkDownloadUrl, type HostPolicy } from "./hosts";
import { decodeDataUri } from "./inline";

export type DownloadRequest = {
  url: string;
  hosts: HostPolicy;
  sink: Writable;
  maxBytes: number;
  timeoutMs: number;
  expectedSize?: number;
  expectedSha256?: string;
  signal?: AbortSignal;
  /**
   * Headers that authenticate the download (Veo's API key), sent only to a hop whose host is one of
   * `hosts` exactly: never to a CDN or any other host a URL or a redirect names.
   */
  credential?: { headers: Record<string, string>; hosts: string[] };
};

const MAX_REDIRECTS = 3;
/** Inline bytes are handed to the sink in pieces of this size, as a fetched body would be. */
const INLINE_CHUNK_BYTES = 64 * 1024;

class Refusal extends Error {
  constructor(
    readonly reason: DownloadFailure,
    detail: string,
    readonly httpStatus?: number,
  ) {
    super(detail);
  }
}

/**
 * Streams one output into the caller's sink while hashing it. Nothing is buffered whole, the size
 * limit is enforced before and during the transfer, and the sink is only ended once length and
 * checksums have been verified, so a storage layer that commits on `finish` never commits a bad copy.
 * No credentials are sent unless the request names a credential, and then only to its own hosts:
 * delivery URLs are public, and a key must not reach a CDN host. A `data:` URI (bytes the provider
 * answered with) is decoded instead of fetched: no host is contacted, so the allow-list, which
 * governs fetches, does not apply to it; the size limit, the hash and every check still do.
 */
export async function downloadToSink(request: DownloadRequest): Promise<DownloadResult> {
  const timeout = AbortSignal.timeout(request.timeoutMs);
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
  const progress = { bytes: 0, contentLength: undefined as number | undefined };
  const sinkErrors: unknown[] = [];
  const onSinkError = (error: unknown) => sinkErrors.push(error);
  request.sink.on("error", onSinkError);
  try {
    const result = await transfer(request, signal, progress, sinkErrors);
    request.sink.end();
    await finished(request.sink);
    return result;
  } catch (error) {
    request.sink.destroy();
    return { ok: false, ...classify(error, request, progress, sinkErrors), bytesReceived: progress.bytes };
  } finally {
    request.sink.off("error", onSinkError);
  }
}

type Progress = { bytes: number; contentLength: number | undefined };

async function transfer(
  request: DownloadRequest,
  signal: AbortSignal,
  progress: Progress,
  sinkErrors: unknown[],
): Promise<Extract<DownloadResult, { ok: true }>> {
  if (isDataUri(request.url)) return inlineTransfer(request, signal, progress, sinkErrors);
  const response = await fetchAllowed(request, signal);
  const length = response.headers.get("content-length");
  progress.contentLength = length !== null && /^\d+$/.test(length) ? Number(length) : undefined;
  if (progress.contentLength !== undefined && progress.contentLength > request.maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new Refusal("too_large", `announced ${progress.contentLength} bytes, limit ${request.maxBytes}`);
  }
  const hash = createHash("sha256");
  for await (const chunk of chunksOf(response.body)) {
    progress.bytes += chunk.byteLength;
    if (progress.bytes > request.maxBytes) throw new Refusal("too_large", `exceeded limit ${request.maxBytes}`);
    hash.update(chunk);
    if (sinkErrors.length > 0 || request.sink.destroyed) throw new Refusal("sink_error", "sink failed");
    if (!request.sink.write(chunk)) await once(request.sink, "drain", { signal });
  }
  const sha256 = hash.digest("hex");
  const verifiedBy = verify(sha256, progress, request, response.headers);
  const contentType = response.headers.get("content-type") ?? undefined;
  return { ok: true, size: progress.bytes, sha256, contentType, verifiedBy };
}

/** The decoded bytes of a `data:` URI, written and checked as a fetched body is. */
async function inlineTransfer(
  request: DownloadRequest,
  signal: AbortSignal,
  progress: Progress,
  sinkErrors: unknown[],
): Promise<Extract<DownloadResult, { ok: true }>> {
  const body = decodeDataUri(request.url, request.maxBytes);
  if (!body.ok) throw new Refusal(body.reason, body.detail);
  const hash = createHash("sha256");
  for (let at = 0; at < body.bytes.length; at += INLINE_CHUNK_BYTES) {
    const chunk = body.bytes.subarray(at, at + INLINE_CHUNK_BYTES);
    progress.bytes += chunk.byteLength;
    hash.update(chunk);
    if (sinkErrors.length > 0 || request.sink.destroyed) throw new Refusal("sink_error", "sink failed");
    if (!request.sink.write(chunk)) await once(request.sink, "drain", { signal });
  }
  const sha256 = hash.digest("hex");
  const verifiedBy = ["inline", ...verify(sha256, progress, request, new Headers())];
  return { ok: true, size: progress.bytes, sha256, contentType: body.contentType, verifiedBy };
}

function verify(sha256: string, progress: Progress, request: DownloadRequest, headers: Headers): string[] {
  const checks: string[] = [];
  const { bytes, contentLength } = progress;
  if (contentLength !== undefined) {
    if (bytes !== contentLength) throw new Refusal("truncated", `received ${bytes} of ${contentLength} bytes`);
    checks.push("content-length");
  }
  if (request.expectedSize !== undefined) {
    if (bytes !== request.expectedSize) {
      throw new Refusal("size_mismatch", `received ${bytes} bytes, expected ${request.expectedSize}`);
    }
    checks.push("expected-size");
  }
  const declared = declaredSha256(headers);
  if (declared !== undefined) {
    if (declared !== sha256) throw new Refusal("checksum_mismatch", "body does not match the server's digest");
    checks.push("repr-digest");
  }
  if (request.expectedSha256 !== undefined) {
    if (request.expectedSha256.toLowerCase() !== sha256) {
      throw new Refusal("checksum_mismatch", "body does not match the expected sha256");
    }
    checks.push("expected-sha256");
  }
  return checks;
}

/** Follows redirects by hand so every hop is checked against the allow-list before it is contacted. */
async function fetchAllowed(request: DownloadRequest, signal: AbortSignal): Promise<Response> {
  let current = request.url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const check = checkDownloadUrl(current, request.hosts);
    if (!check.ok) throw new Refusal("host_not_allowed", check.detail);
    const headers = { "accept-encoding": "identity", ...credentialFor(check.url, request.credential) };
    const response = await fetch(check.url, { redirect: "manual", signal, headers });
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel().catch(() => {});
      current = new URL(location, check.url).toString();
      continue;
    }
    if (response.ok) return response;
    await response.body?.cancel().catch(() => {});
    // Expired or deleted outputs answer 403/404/410 on the CDNs involved; all mean "gone", not "retry".
    const gone = response.status === 403 || response.status === 404 || response.status === 410;
    throw new Refusal(gone ? "not_available" : "http_error", `HTTP ${response.status}`, response.status);
  }
  throw new Refusal("http_error", `more than ${MAX_REDIRECTS} redirects`);
}

function credentialFor(url: URL, credential: DownloadRequest["credential"]): Record<string, string> {
  if (!credential) return {};
  const host = url.host.toLowerCase();
  return credential.hosts.some((h) => h.toLowerCase() === host) ? credential.headers : {};
}

function classify(error: unknown, request: DownloadRequest, progress: Progress, sinkErrors: unknown[]) {
  if (error instanceof Refusal) return { reason: error.reason, detail: error.message, httpStatus: error.httpStatus };
  if (sinkErrors.length > 0) return { reason: "sink_error" as const, detail: "sink failed" };
  const described = describeFetchError(error, request.signal);
  if (described === "timeout")
    return { reason: "timeout" as const, detail: `no complete body within ${request.timeoutMs} ms` };
  if (progress.contentLength !== undefined && progress.bytes < progress.contentLength) {
    return {
      reason: "truncated" as const,
      detail: `connection ended after ${progress.bytes} of ${progress.contentLength} bytes`,
    };
  }
  return { reason: "transport_error" as const, detail: described };
}
