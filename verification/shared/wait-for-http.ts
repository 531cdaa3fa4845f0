/** Polls until `url` answers with an accepted status (any below 500 by default). */
export async function waitForHttp(url: string, timeoutMs: number, accept = (status: number) => status < 500) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(5_000) });
      await response.body?.cancel();
      if (accept(response.status)) return;
    } catch {}
    if (Date.now() > until) throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
