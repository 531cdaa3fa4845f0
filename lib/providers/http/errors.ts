/** A short, stable reason for a failed fetch, suitable for evidence (no URLs, no headers). */
export function describeFetchError(error: unknown, callerSignal?: AbortSignal): string {
  if (callerSignal?.aborted) return "aborted";
  const name = (error as { name?: string } | null)?.name;
  if (name === "TimeoutError" || name === "AbortError") return "timeout";
  // API calls refuse redirects so a key never follows a link to another host.
  if (/redirect/i.test(String((error as { cause?: { message?: string } } | null)?.cause?.message)))
    return "redirect_refused";
  const code = findCode(error);
  return code ? `connection_error:${code}` : "connection_error";
}

/** undici nests the socket error (ECONNRESET, UND_ERR_SOCKET...) in `cause`. */
function findCode(error: unknown, depth = 0): string | undefined {
  if (!error || typeof error !== "object" || depth > 3) return undefined;
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  if (typeof code === "string") return code;
  return findCode(cause, depth + 1);
}

/** Resolves after `ms`, or early when the caller aborts (the next loop turn then notices). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
