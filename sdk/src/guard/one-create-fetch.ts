/**
 * The one-create fetch: what a provider's official client is given as its `fetch` inside one
 * `submit`. The official clients resend a create by themselves after a connection reset, a timeout,
 * a 429 or a 503 (docs/providers.md, "Official clients"), and a resent create after a lost answer is
 * a second paid job. Whatever a client's retry loop does, this fetch lets one create reach the wire:
 * the first request that is not a GET or HEAD goes out, every later one throws `CreateAlreadySent`
 * before any network I/O. Reads (GET, HEAD) pass, so a client may still poll the job it created.
 */

/** What the one create that went out came to, as the fetch saw it. */
export type SentCreate = {
  method: string;
  url: string;
  /** The provider's HTTP status, when an answer arrived. */
  status?: number;
  /** Why no answer arrived (a reset, an abort), when none did. */
  error?: string;
};

/** Thrown instead of sending a second create through one submit's fetch. Nothing was sent. */
export class CreateAlreadySent extends Error {
  override name = "CreateAlreadySent";
  readonly code = "create_already_sent";
  constructor(
    readonly method: string,
    readonly url: string,
    /** The create that did go out, if any: a second create is refused after the submit ends too. */
    readonly sent: SentCreate | undefined,
  ) {
    super(
      sent
        ? `refused to send ${method} ${url}: this submit already sent ${sent.method} ${sent.url} (${answerOf(sent)})`
        : `refused to send ${method} ${url}: this submit has ended`,
    );
  }
}

export type OneCreateFetch = {
  fetch: typeof fetch;
  /** The create that went out, if one did. */
  sent(): SentCreate | undefined;
  /** How many later creates were refused: each is a resend the client would have made. */
  refused(): number;
  /** No create goes out after this (the submit has settled). Reads still pass. */
  close(): void;
};

const READS = new Set(["GET", "HEAD"]);

export function createOneCreateFetch(signal: AbortSignal, base: typeof fetch = globalThis.fetch): OneCreateFetch {
  let sent: SentCreate | undefined;
  let closed = false;
  let refused = 0;

  const guarded = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : undefined;
    const method = (init?.method ?? request?.method ?? "GET").toUpperCase();
    const url = request ? request.url : String(input);
    signal.throwIfAborted();
    // Decided before any await, so two creates started together cannot both pass.
    const isCreate = !READS.has(method);
    if (isCreate && (sent || closed)) {
      refused += 1;
      throw new CreateAlreadySent(method, url, sent);
    }
    const mine = isCreate ? { method, url } : undefined;
    if (mine) sent = mine;
    // The client's own signal (its timeout, its caller's abort) and the submit's, whichever is first.
    const own = init?.signal ?? request?.signal;
    const both = own ? AbortSignal.any([signal, own]) : signal;
    try {
      const response = await base(input, { ...init, signal: both });
      if (mine) sent = { ...mine, status: response.status };
      return response;
    } catch (error) {
      if (mine) sent = { ...mine, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
      throw error;
    }
  };

  return {
    fetch: guarded as typeof fetch,
    sent: () => sent,
    refused: () => refused,
    close: () => {
      closed = true;
    },
  };
}

/** One line for a report's evidence: what the create that went out came to. */
export function describeSentCreate(sent: SentCreate | undefined, refused: number): string {
  if (!sent) return "no create went out through the guarded fetch";
  const resends = refused > 0 ? `; ${refused} resend(s) by the client refused before sending` : "";
  return `one create went out (${sent.method} ${sent.url}: ${answerOf(sent)})${resends}`;
}

function answerOf(sent: SentCreate): string {
  if (sent.status !== undefined) return `answered ${sent.status}`;
  return sent.error ? `no answer: ${sent.error}` : "no answer yet";
}
