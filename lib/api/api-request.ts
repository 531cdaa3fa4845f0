/**
 * What an API route reads of a request, whoever delivered it: Next.js (a Fetch `Request`) or the
 * HTTP entry (a Node request, without building one). The body is opened only when asked for, so a
 * route authenticates before it reads, and it is read by the one byte-limited reader
 * (`readLimitedBody` in read-json-body.ts) whichever transport delivered it.
 */
export type ApiRequest = {
  method: string;
  /** Path and query, or an absolute URL. */
  url: string;
  header(name: string): string | null;
  /** The body's chunks as they arrive; leaving the loop early stops reading (the rest is not read). */
  body(): AsyncIterable<Uint8Array>;
};

/**
 * What an API route answers: a status, the body's text and its type, and any header of its own
 * (Retry-After when rate limited, a file's name). The transport adds the headers every response carries.
 */
export type ApiReply = {
  status: number;
  /** Text, or a stored file's bytes as they are read (a delivered video). */
  body: string | ReadableStream<Uint8Array>;
  contentType: string;
  headers?: Record<string, string>;
};

export const JSON_TYPE = "application/json";

export function fromFetchRequest(req: Request): ApiRequest {
  return {
    method: req.method,
    url: req.url,
    header: (name) => req.headers.get(name),
    body: () => streamChunks(req.body),
  };
}

/** A Fetch body's chunks; leaving early cancels the stream, so nothing more is read. */
async function* streamChunks(stream: ReadableStream<Uint8Array> | null): AsyncGenerator<Uint8Array> {
  if (!stream) return;
  const reader = stream.getReader();
  let done = false;
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) yield chunk.value;
    done = true;
  } finally {
    if (!done) await reader.cancel();
  }
}

export function replyResponse(reply: ApiReply): Response {
  return new Response(reply.body, {
    status: reply.status,
    headers: { "content-type": reply.contentType, ...reply.headers },
  });
}
