import type { IncomingMessage, ServerResponse } from "node:http";
import { MAX_BODY_BYTES } from "@/lib/api/read-json-body";

/**
 * A Node request as the Fetch `Request` a route handler takes. The body is read here into one
 * buffer (cheaper than a web stream per request), stopping one byte past the API's limit so the
 * handler still answers 413 without more of it being held.
 */
export async function toFetchRequest(req: IncomingMessage): Promise<Request> {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    headers.append(req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string);
  }
  const method = req.method ?? "GET";
  const body = method === "GET" || method === "HEAD" ? undefined : await readCapped(req, MAX_BODY_BYTES + 1);
  return new Request(new URL(req.url ?? "/", "http://localhost"), { method, headers, body });
}

function readCapped(req: IncomingMessage, cap: number): Promise<Uint8Array<ArrayBuffer>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= cap) finish();
    };
    const finish = () => {
      req.off("data", onData).off("end", finish).off("error", reject);
      resolve(new Uint8Array(Buffer.concat(chunks).subarray(0, cap)));
    };
    req.on("data", onData).once("end", finish).once("error", reject);
  });
}

/** Writes a handler's `Response` (small JSON bodies here, so buffered) with extra headers. */
export async function sendFetchResponse(
  res: ServerResponse,
  response: Response,
  extraHeaders: readonly { key: string; value: string }[],
): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  res.statusCode = response.status;
  for (const { key, value } of extraHeaders) res.setHeader(key, value);
  response.headers.forEach((value, key) => {
    if (key !== "set-cookie") res.setHeader(key, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader("set-cookie", cookies);
  res.setHeader("content-length", body.length);
  res.end(body);
}
