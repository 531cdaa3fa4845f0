import type { RequestPace, RetryPolicy } from "../types";
import { backoffDelayMs, parseRetryAfterMs, retryAfterDelayMs } from "./backoff";
import { chunksOf } from "./chunks";
import { describeFetchError, sleep } from "./errors";

export type HttpAnswer =
  | { kind: "response"; status: number; headers: Headers; body: unknown; attempts: number }
  | { kind: "unknown"; reason: string; attempts: number; httpStatus?: number; retryAfterMs?: number };

export type GetRequest = {
  url: string;
  headers: Record<string, string>;
  policy: RetryPolicy;
  random: () => number;
  signal?: AbortSignal;
  /** Every attempt, retries included, waits for its slot; a Retry-After is passed on before waiting it out. */
  pace?: RequestPace;
  /** Lets an adapter keep an answer that generic rules would retry (fal's stored model errors). */
  isFinal?: (status: number, headers: Headers) => boolean;
  maxBodyBytes?: number;
};

const RETRYABLE_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);
const DEFAULT_MAX_BODY = 2 * 1024 * 1024;

/**
 * The only way this layer talks to a provider API: a GET, so a status check can never create a
 * paid job, however it is retried. Every attempt has its own timeout and the number of attempts is
 * bounded; what cannot be answered within them comes back as `unknown`, never as a job failure.
 */
export async function getWithRetry(request: GetRequest): Promise<HttpAnswer> {
  const { policy, random } = request;
  let last: Extract<HttpAnswer, { kind: "unknown" }> = { kind: "unknown", reason: "not_attempted", attempts: 0 };
  for (let attempt = 1; attempt <= policy.maxAttempts; attempt++) {
    if (request.signal?.aborted) return { ...last, reason: "aborted", attempts: attempt - 1 };
    await request.pace?.take(request.signal);
    const outcome = await attemptOnce(request, attempt);
    if (outcome.kind === "response") return outcome;
    last = outcome;
    if (outcome.retryAfterMs !== undefined) await request.pace?.holdOff(outcome.retryAfterMs);
    if (attempt === policy.maxAttempts) break;
    let waitMs = backoffDelayMs(attempt, policy, random);
    if (outcome.retryAfterMs !== undefined) {
      // Waiting longer than allowed would hold a worker's lease hostage; hand the hint back instead.
      if (outcome.retryAfterMs > policy.maxRetryAfterMs) return outcome;
      waitMs = retryAfterDelayMs(outcome.retryAfterMs, random);
    }
    await sleep(waitMs, request.signal);
  }
  return last;
}

type AttemptOutcome = Extract<HttpAnswer, { kind: "response" }> | Extract<HttpAnswer, { kind: "unknown" }>;

async function attemptOnce(request: GetRequest, attempt: number): Promise<AttemptOutcome> {
  const timeout = AbortSignal.timeout(request.policy.perAttemptTimeoutMs);
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
  try {
    const response = await fetch(request.url, {
      method: "GET",
      headers: { accept: "application/json", ...request.headers },
      redirect: "error",
      signal,
    });
    const final = request.isFinal?.(response.status, response.headers) ?? false;
    if (!final && RETRYABLE_STATUS.has(response.status)) {
      await response.body?.cancel().catch(() => {});
      const retryAfterMs = parseRetryAfterMs(response.headers.get("retry-after"), Date.now());
      const reason = response.status === 429 ? "rate_limited" : `http_${response.status}`;
      return { kind: "unknown", reason, attempts: attempt, httpStatus: response.status, retryAfterMs };
    }
    const text = await readLimited(response, request.maxBodyBytes ?? DEFAULT_MAX_BODY);
    if (text === undefined) {
      return { kind: "unknown", reason: "response_too_large", attempts: attempt, httpStatus: response.status };
    }
    return {
      kind: "response",
      status: response.status,
      headers: response.headers,
      body: parseJson(text),
      attempts: attempt,
    };
  } catch (error) {
    return { kind: "unknown", reason: describeFetchError(error, request.signal), attempts: attempt };
  }
}

async function readLimited(response: Response, maxBytes: number): Promise<string | undefined> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of chunksOf(response.body)) {
    total += chunk.byteLength;
    if (total > maxBytes) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function parseJson(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
