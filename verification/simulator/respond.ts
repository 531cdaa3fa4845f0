import type { IncomingMessage, ServerResponse } from "node:http";
import type { Fault } from "./faults";
import type { SimProvider } from "./jobs";
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
  /** The provider whose route answers, once resolved: its errors take that provider's documented shape. */
  provider?: SimProvider;
};

const GOOGLE_STATUS: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  409: "ABORTED",
  429: "RESOURCE_EXHAUSTED",
  499: "CANCELLED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

const REPLICATE_TITLE: Record<number, string> = {
  401: "Unauthenticated",
  404: "Not found",
  422: "Invalid input",
  429: "Request was throttled",
};

/**
 * An error body in the provider's documented shape, the one its official client parses: Replicate's
 * problem JSON `{ title, detail, status }`, fal's and Luma's `{ detail }`, Runway's `{ error }`,
 * Google's `{ error: { code, message, status } }`. Without a provider (an unknown path) the
 * simulator's own `{ detail, status }`.
 */
export function errorBody(provider: SimProvider | undefined, status: number, message: string): unknown {
  switch (provider) {
    case "replicate":
      return {
        title: REPLICATE_TITLE[status] ?? (status >= 500 ? "Internal server error" : "Error"),
        detail: message,
        status,
      };
    case "fal":
    case "luma":
      return { detail: message };
    case "runway":
      return { error: message };
    case "veo":
      return {
        error: {
          code: status,
          message,
          status: GOOGLE_STATUS[status] ?? (status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION"),
        },
      };
    default:
      return { detail: message, status };
  }
}

export function sendError(
  ctx: Pick<RouteContext, "res" | "provider">,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(ctx.res, status, errorBody(ctx.provider, status, message), headers);
}

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
      sendError(ctx, fault.status, "Simulated server error");
      return "handled";
    case "rate_limit":
      sendError(ctx, 429, `Request was throttled. Expected available in ${fault.retryAfterSeconds} second(s).`, {
        "retry-after": String(fault.retryAfterSeconds),
      });
      return "handled";
    default:
      return "continue";
  }
}
