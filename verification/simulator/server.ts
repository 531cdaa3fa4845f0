import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { handleAdmin } from "./admin-routes";
import { type Clock, systemClock } from "./clock";
import { deliveryRoute } from "./delivery-routes";
import { DEFAULT_TIMINGS, type JobTimings } from "./jobs";
import { SIMULATOR_PROVIDERS } from "./providers";
import { applyFault, type RouteContext, sendError, sendJson } from "./respond";
import type { RouteMatch } from "./routes";
import { SimulatorState } from "./state";

export type SimulatorOptions = {
  /** 0 picks a free port (tests); the script uses SIMULATOR_PORT, default 4010. */
  port?: number;
  /** When `port` is taken, the next ones up to this many in all are tried (default 1: only `port`). */
  portAttempts?: number;
  host?: string;
  clock?: Clock;
  /** When set, provider and admin routes require `Authorization: Bearer|Token|Key <token>`; otherwise any or none. */
  token?: string;
  timings?: Partial<JobTimings>;
  /** Origin written into URLs the simulator hands out, if clients reach it under another name. */
  publicUrl?: string;
  /**
   * Origin written into output URLs only (the API's own URLs keep `publicUrl`), e.g. an https front
   * that serves the outputs: Replicate's FileOutput wraps only https: and data: URLs, and genai's
   * files.download takes a file's ID only from an https URI.
   */
  outputUrl?: string;
  /** The `whsec_` secret its Replicate webhooks are signed with (random when unset). */
  replicateWebhookSecret?: string;
  /** Webhooks are held for the caller to deliver (`state.webhooks.takeHeld`), never sent on a timer. */
  manualWebhooks?: boolean;
};

export const FAL_JWKS_PATH = "/fal-jwks/.well-known/jwks.json";

export type RunningSimulator = {
  url: string;
  state: SimulatorState;
  /** What the app needs to verify the simulator's webhooks, as it would the providers'. */
  webhooks: { replicateSecret: string; falJwksUrl: string };
  stop(): Promise<void>;
};

/** The local stand-in for Replicate, fal, Runway, Veo and Luma, on plain node:http. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const state = new SimulatorState(
    options.clock ?? systemClock,
    { ...DEFAULT_TIMINGS, ...options.timings },
    options.replicateWebhookSecret,
    options.manualWebhooks,
  );
  let origin = "";
  const server = createServer((req, res) => {
    handle(req, res, state, origin, options.token).catch(() => {
      if (!res.headersSent) sendJson(res, 500, { detail: "simulator error" });
      else res.destroy();
    });
  });
  const host = options.host ?? "127.0.0.1";
  await listenFrom(server, host, options.port ?? 0, options.port ? (options.portAttempts ?? 1) : 1);
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  origin = (options.publicUrl ?? url).replace(/\/+$/, "");
  state.outputOrigin = options.outputUrl?.replace(/\/+$/, "");
  return {
    url,
    state,
    webhooks: { replicateSecret: state.webhooks.replicateSecret, falJwksUrl: `${url}${FAL_JWKS_PATH}` },
    stop: () =>
      new Promise<void>((resolve) => {
        state.webhooks.stop();
        // Hung requests are held open on purpose; close them so stop() returns promptly.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Binds the first free port from `first` on. The port is taken by listening, never by probing
 * first: a probe leaves a gap in which another process can take the port.
 */
async function listenFrom(server: Server, host: string, first: number, attempts: number): Promise<void> {
  for (let port = first; ; port++) {
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          resolve();
        });
      });
      return;
    } catch (error) {
      const inUse = (error as NodeJS.ErrnoException).code === "EADDRINUSE";
      if (!inUse || port >= first + attempts - 1) throw error;
    }
  }
}

const providers = Object.values(SIMULATOR_PROVIDERS);
const ROUTES = new Map(providers.flatMap((provider) => Object.entries(provider.routes)));
const PREFIX_PROVIDER = new Map(
  providers.flatMap((provider) => Object.keys(provider.routes).map((prefix) => [prefix, provider.name] as const)),
);
const CDN_DELIVERED = new Set(providers.filter((provider) => provider.cdnDelivery).map((provider) => provider.name));

function resolveRoute(method: string, parts: string[]): RouteMatch | undefined {
  const [prefix, ...rest] = parts;
  if (prefix === "delivery") return deliveryRoute(method, rest, CDN_DELIVERED);
  return prefix === undefined ? undefined : ROUTES.get(prefix)?.(method, rest);
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  state: SimulatorState,
  origin: string,
  token?: string,
) {
  const url = new URL(req.url ?? "/", "http://simulator.invalid");
  const method = req.method ?? "GET";
  const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  const ctx: RouteContext = { req, res, url, state, origin, token };
  // The public key set fal publishes; like fal's, it needs no credentials.
  if (method === "GET" && url.pathname === FAL_JWKS_PATH) return sendJson(res, 200, state.webhooks.jwks());
  if (parts[0] === "__admin") {
    // Seeding a job or a fault is as good as answering for the provider: the same token guards it.
    if (token && !authorised(req, token)) return sendJson(res, 401, { detail: "Invalid token", status: 401 });
    return handleAdmin(ctx, method, parts.slice(1));
  }

  const match = resolveRoute(method, parts);
  state.record(method, url.pathname, url.search);
  // An unknown path under a provider's prefix answers in that provider's shape, as its API would.
  ctx.provider = match?.provider ?? PREFIX_PROVIDER.get(parts[0] ?? "");
  if (!match) return sendError(ctx, 404, "Not found");
  if (match.route === "create") state.countCreate(match.provider);
  if (match.route === "cancel") state.countCancel(match.provider);
  if (match.route !== "download") {
    const waitSeconds = state.rateLimit?.take();
    if (waitSeconds !== undefined) {
      const message = `Request was throttled. Expected available in ${waitSeconds} second(s).`;
      return sendError(ctx, 429, message, { "retry-after": String(waitSeconds) });
    }
    if (token && !authorised(req, token)) return sendError(ctx, 401, "Invalid token");
  }
  const fault = state.faults.take({ provider: match.provider, route: match.route, jobId: match.jobId });
  if (match.route === "create" || match.route === "download") return match.handle(ctx, fault);
  if ((await applyFault(fault, ctx)) === "handled") return;
  await match.handle(ctx, fault);
}

/**
 * Replicate, Runway and Luma send `Bearer` (Replicate formerly `Token`), fal sends `Key`, the Gemini API
 * its `x-goog-api-key` header; any of them carries the token.
 */
export function authorised(req: IncomingMessage, token: string): boolean {
  if (req.headers["x-goog-api-key"] === token) return true;
  const header = req.headers.authorization ?? "";
  const [scheme, value] = header.split(" ");
  return (scheme === "Bearer" || scheme === "Token" || scheme === "Key") && value === token;
}
