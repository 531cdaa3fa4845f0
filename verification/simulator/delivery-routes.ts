import { timingSafeEqual } from "node:crypto";
import { reprDigestHeader } from "../../lib/providers/download/digest";
import { sha256Hex } from "./bytes";
import type { Fault } from "./faults";
import { outputAvailable, type SimProvider } from "./jobs";
import { applyFault, type RouteContext } from "./respond";
import { outputSignature, type RouteMatch } from "./routes";

/**
 * `/delivery/{provider}/{jobId}/{file}`: the stand-in for the CDNs of the providers that use one (`cdnDelivery`). Serves
 * the job's deterministic bytes with Content-Length and a Repr-Digest, until the output expires.
 */
export function deliveryRoute(
  method: string,
  parts: string[],
  delivered: ReadonlySet<SimProvider>,
): RouteMatch | undefined {
  const [name, jobId, file] = parts;
  if (method !== "GET" || parts.length !== 3 || !name || !jobId || !file) return undefined;
  const provider = name as SimProvider;
  if (!delivered.has(provider)) return undefined;
  return { provider, route: "download", jobId, handle: (ctx, fault) => serve(ctx, fault, provider, jobId) };
}

/** A job's output bytes with every download fault, for whichever route hands them out. */
export async function serve(ctx: RouteContext, fault: Fault | undefined, provider: SimProvider, jobId: string) {
  if ((await applyFault(fault, ctx)) === "handled") return;
  const job = ctx.state.find(provider, jobId);
  if (!job || !outputAvailable(job, ctx.state.clock.now())) {
    ctx.res.writeHead(404, { "content-type": "text/plain" });
    ctx.res.end("Not found");
    return;
  }
  if (fault?.type === "redirect") {
    ctx.res.writeHead(302, { location: `http://${fault.toHost}${ctx.url.pathname}` });
    ctx.res.end();
    return;
  }
  if (job.signedOutputs && !signedFor(ctx, job.id)) {
    ctx.res.writeHead(403, { "content-type": "application/xml" });
    ctx.res.end("<Error><Code>AccessDenied</Code><Message>Request has expired or is not signed</Message></Error>");
    return;
  }
  const bytes = ctx.state.output(job);
  const headers: Record<string, string> = {
    "content-type": "video/mp4",
    "content-length": String(bytes.length),
    "repr-digest": reprDigestHeader(sha256Hex(bytes)),
    "cache-control": "private, max-age=3600",
  };
  if (fault?.type === "chunked") {
    delete headers["content-length"];
    ctx.res.writeHead(200, headers);
    for (let at = 0; at < bytes.length; at += 16 * 1024) ctx.res.write(bytes.subarray(at, at + 16 * 1024));
    ctx.res.end();
    return;
  }
  ctx.res.writeHead(200, headers);
  if (fault?.type === "truncate") {
    // Announce the full length, send part of it, then drop the connection.
    const part = bytes.subarray(0, Math.min(bytes.length - 1, fault.afterBytes ?? Math.floor(bytes.length / 2)));
    ctx.res.write(part, () => ctx.req.socket.destroy());
    return;
  }
  if (fault?.type === "corrupt") {
    // Same length, same declared digest, a few flipped bytes: only a checksum can tell.
    const copy = Buffer.from(bytes);
    const at = Math.floor(copy.length / 2);
    for (let i = at; i < Math.min(copy.length, at + 4); i++) copy[i] = (copy[i] ?? 0) ^ 0xff;
    ctx.res.end(copy);
    return;
  }
  ctx.res.end(bytes);
}

/** Whether the request carries the signed query this job's URL was handed out with, not yet expired. */
function signedFor(ctx: RouteContext, jobId: string): boolean {
  const expires = ctx.url.searchParams.get("expires") ?? "";
  const signature = ctx.url.searchParams.get("signature") ?? "";
  const expected = outputSignature(ctx.state.urlSigningKey, jobId, expires);
  const fresh = /^\d+$/.test(expires) && ctx.state.clock.now() < Number(expires) * 1000;
  return (
    fresh && signature.length === expected.length && timingSafeEqual(Buffer.from(signature), Buffer.from(expected))
  );
}
