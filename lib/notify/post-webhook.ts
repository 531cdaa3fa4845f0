import { request as httpRequest, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import type { VettedTarget } from "./webhook-target";

/**
 * POSTs a webhook to the address that was vetted, never resolving the name again: the socket's
 * lookup answers with that one address. The URL's host name still goes into the Host header and,
 * over https, into SNI and the certificate check. A new connection each time (no agent), no
 * redirects followed (a 3xx is just a status), and the response body is not read.
 */
export function postWebhook(
  target: VettedTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<number> {
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) {
      (callback as unknown as (e: null, list: { address: string; family: number }[]) => void)(null, [
        { address: target.address, family: target.family },
      ]);
    } else {
      callback(null, target.address, target.family);
    }
  };
  const https = target.url.protocol === "https:";
  const options: RequestOptions & { servername?: string } = {
    method: "POST",
    host: target.hostname,
    port: target.url.port || (https ? 443 : 80),
    path: `${target.url.pathname}${target.url.search}`,
    headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
    lookup: pinned,
    agent: false,
    signal: AbortSignal.timeout(timeoutMs),
  };
  return new Promise((resolve, reject) => {
    const req = (https ? httpsRequest : httpRequest)(options, (res) => {
      resolve(res.statusCode ?? 0);
      res.destroy();
    });
    req.on("error", reject);
    req.end(body);
  });
}
