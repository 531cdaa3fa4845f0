/**
 * One line per official client, so that a create sent with it inside `submit` reaches the provider
 * at most once. Each function returns the settings the client's own constructor takes, with the
 * submit's one-create fetch in place of the client's own (and its retries off where it has such a
 * setting): the SDK never loads a client, so none is a dependency. What each client does without
 * this, with file and line in the version read, is in docs/providers.md ("Official clients").
 *
 *   await recovery.submit(send, async (ctx) => {
 *     const runway = new RunwayML(guardRunway(ctx, { apiKey }));
 *     const task = await runway.textToVideo.create(body, { signal: ctx.signal });
 *     return { providerJobId: task.id };
 *   });
 *
 * Make the client inside the create callback, one per submit: a client made once and shared would
 * carry one submit's fetch into the next. Anything that sends before the create (a file upload
 * through the client) uses up the one create: upload first, outside the submit, and pass URLs.
 */

/** What the guard needs from a submit's create context. */
export type GuardContext = { fetch: typeof fetch; signal: AbortSignal };

type WithFetch<O> = Omit<O, "fetch"> & { fetch: typeof fetch };

/**
 * Replicate (`replicate` 1.4.0): its `request()` retries a thrown fetch error on any method, POST
 * included, up to six calls, and a 429 on a create; no setting turns that off, so the fetch is the
 * only way. `new Replicate(guardReplicate(ctx, { auth }))`.
 */
export function guardReplicate<O extends object>(ctx: GuardContext, options: O): WithFetch<O> {
  return { ...options, fetch: ctx.fetch };
}

/**
 * fal (`@fal-ai/client` 1.10.1): its queue submit passes a retry policy of its own (3 retries on a
 * network error, 429, 502, 503, 504) over the client's `retry` setting, so `retry.maxRetries: 0`
 * does not reach it; the config's `fetch` does. `createFalClient(guardFal(ctx, { credentials }))`;
 * never the shared `fal` singleton, whose config outlives the submit.
 */
export function guardFal<O extends object>(ctx: GuardContext, config: O): WithFetch<O> {
  return { ...config, fetch: ctx.fetch };
}

/**
 * Runway (`@runwayml/sdk` 4.20.1): 2 retries on a connection error, its own 60 s timeout, 408, 409,
 * 429 and 5xx. `new RunwayML(guardRunway(ctx, { apiKey }))`.
 */
export function guardRunway<O extends object>(ctx: GuardContext, options: O): WithFetch<O> & { maxRetries: 0 } {
  return { ...options, fetch: ctx.fetch, maxRetries: 0 };
}

/** Luma (`lumaai` 1.19.1): the same retry loop as Runway's. `new LumaAI(guardLuma(ctx, { authToken }))`. */
export function guardLuma<O extends object>(ctx: GuardContext, options: O): WithFetch<O> & { maxRetries: 0 } {
  return { ...options, fetch: ctx.fetch, maxRetries: 0 };
}

type GenaiHttp = { httpOptions?: object };

/**
 * Google Veo through `@google/genai` 3.x: no retry unless `httpOptions.retryOptions` is set (then a
 * thrown fetch error and 408, 429, 5xx are retried); its `httpOptions.fetch` is used for every
 * call. `new GoogleGenAI(guardGenai(ctx, { apiKey }))`; the retry options are dropped.
 */
export function guardGenai<O extends GenaiHttp>(
  ctx: GuardContext,
  options: O,
): Omit<O, "httpOptions"> & {
  httpOptions: Omit<NonNullable<O["httpOptions"]>, "fetch" | "retryOptions"> & { fetch: typeof fetch };
} {
  const { retryOptions: _dropped, ...http } = (options.httpOptions ?? {}) as { retryOptions?: unknown };
  return { ...options, httpOptions: { ...http, fetch: ctx.fetch } as never };
}
