/**
 * What an API route reads of a request, whoever delivered it: Next.js (a Fetch `Request`) or the
 * HTTP entry (a Node request, without building one). The body is read only when asked for, so a
 * route authenticates before it reads.
 */
export type ApiRequest = {
  method: string;
  /** Path and query, or an absolute URL. */
  url: string;
  header(name: string): string | null;
  /** The body's bytes, or `too_large` as soon as more than `limit` arrive (the rest is not read). */
  readBody(limit: number): Promise<Uint8Array | "too_large">;
};

/** What an API route answers: a status and its JSON text (and, when rate limited, when to retry). */
export type ApiReply = { status: number; json: string; retryAfterSeconds?: number };

export function fromFetchRequest(req: Request): ApiRequest {
  return {
    method: req.method,
    url: req.url,
    header: (name) => req.headers.get(name),
    readBody: async (limit) => {
      if (!req.body) return new Uint8Array();
      const reader = req.body.getReader();
      const chunks: Uint8Array[] = [];
      let size = 0;
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        size += chunk.value.byteLength;
        if (size > limit) {
          await reader.cancel();
          return "too_large";
        }
        chunks.push(chunk.value);
      }
      return Buffer.concat(chunks);
    },
  };
}

export function replyResponse(reply: ApiReply): Response {
  return new Response(reply.json, {
    status: reply.status,
    headers: {
      "content-type": "application/json",
      ...(reply.retryAfterSeconds ? { "Retry-After": String(reply.retryAfterSeconds) } : {}),
    },
  });
}
