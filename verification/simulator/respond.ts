import type { IncomingMessage, ServerResponse } from "node:http";
import type { Fault } from "./faults";
import type { SimulatorState } from "./state";

export type RouteContext = {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  state: SimulatorState;
  /** Public origin of the simulator, used for every URL it hands out. */
  origin: string;
  /** The token provider calls must carry, if any (a route that checks its own credential reads it). */
  token?: string;
};

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export async function readJson(req: IncomingMessage, limit = 1024 * 1024): Promise<unknown> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > limit) throw new Error("body too large");
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Applies the faults that replace or precede any answer. Download-only faults (truncate, corrupt,
 * redirect) pass through here and are applied by the delivery route.
 */
export async function applyFault(fault: Fault | undefined, ctx: RouteContext): Promise<"continue" | "handled"> {
  if (!fault) return "continue";
  switch (fault.type) {
    case "delay":
      await new Promise((resolve) => setTimeout(resolve, fault.ms));
      return "continue";
    case "hang":
      // Never answer: the client's own timeout is what is being exercised. stop() closes the socket.
      return "handled";
    case "reset":
      ctx.req.socket.destroy();
      return "handled";
    case "http_error":
      sendJson(ctx.res, fault.status, { detail: "Simulated server error", status: fault.status });
      return "handled";
    case "rate_limit":
      sendJson(
        ctx.res,
        429,
        { detail: `Request was throttled. Expected available in ${fault.retryAfterSeconds} second(s).`, status: 429 },
        { "retry-after": String(fault.retryAfterSeconds) },
      );
      return "handled";
    default:
      return "continue";
  }
}
