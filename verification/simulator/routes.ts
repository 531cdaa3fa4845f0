import type { ProviderName } from "../../lib/providers/types";
import type { Fault, SimRoute } from "./faults";
import type { SimJob, SimProvider } from "./jobs";
import type { RouteContext } from "./respond";

/** One resolved provider-facing route. Create and download routes apply their faults themselves. */
export type RouteMatch = {
  provider: SimProvider;
  route: SimRoute;
  jobId?: string;
  handle(ctx: RouteContext, fault: Fault | undefined): Promise<void> | void;
};

/** Where output URLs point: the simulator's public origin unless `outputUrl` names another. */
export const outputOrigin = (ctx: { state: { outputOrigin: string | undefined }; origin: string }) =>
  ctx.state.outputOrigin ?? ctx.origin;

export const iso = (ms: number) => new Date(ms).toISOString();

export const encodeCursor = (offset: number) => Buffer.from(String(offset)).toString("base64");

export function decodeCursor(cursor: string | null): number {
  if (!cursor) return 0;
  const value = Number(Buffer.from(cursor, "base64").toString("utf8"));
  return Number.isInteger(value) && value >= 0 ? value : 0;
}

export function parseTime(value: string | null, fallback: number): number {
  if (!value) return fallback;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? fallback : ms;
}

/** What the request log says a provider call was: the job it was about, and which kind of read. */
export type LoggedCall = { call: "status" | "result" | "download"; jobId?: string };

/**
 * One provider's simulated API, listed once in ./providers.ts: the server routes, the request log,
 * job seeding, fault matching and create counts are derived from that list.
 */
export type SimulatorProvider = {
  readonly name: ProviderName;
  /** First path segments its API answers under (fal has two: the queue and the platform API), each with its routes. */
  readonly routes: Readonly<Record<string, (method: string, parts: string[]) => RouteMatch | undefined>>;
  /** Which job a logged GET under one of its prefixes (whole path, prefix first) read, if any. */
  classify(parts: string[]): LoggedCall | undefined;
  /** Its outputs are handed out under /delivery/{name}/, the stand-in for its CDN. */
  readonly cdnDelivery: boolean;
  /** The model a seeded job gets when the seed names none. */
  readonly defaultModel: string;
  /** A job ID of the provider's own shape. */
  newJobId(): string;
  /**
   * The ID its API hands the caller for a job, when it is not the simulator's own key (Veo names the
   * whole operation, `models/{model}/operations/{id}`); the product records and looks up this one.
   */
  providerJobId?(job: SimJob): string;
};
