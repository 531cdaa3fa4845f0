import { createHmac } from "node:crypto";
import type { ProviderName } from "../../lib/providers/types";
import type { Fault, SimRoute } from "./faults";
import { completedAt, type SimJob, type SimProvider } from "./jobs";
import type { RouteContext } from "./respond";

/** One resolved provider-facing route. Create and download routes apply their faults themselves. */
export type RouteMatch = {
  provider: SimProvider;
  route: SimRoute;
  jobId?: string;
  handle(ctx: RouteContext, fault: Fault | undefined): Promise<void> | void;
};

type UrlSite = { state: { outputOrigin: string | undefined; urlSigningKey: Buffer }; origin: string };

/** Where output URLs point: the simulator's public origin unless `outputUrl` names another. */
export const outputOrigin = (ctx: UrlSite) => ctx.state.outputOrigin ?? ctx.origin;

/** The signature a signed output URL carries: over the job and the moment (in seconds) it stops working. */
export function outputSignature(key: Buffer, jobId: string, expires: string): string {
  return createHmac("sha256", key).update(`${jobId}.${expires}`).digest("hex");
}

/**
 * A job's output URL as its provider hands it out; for a job with `signedOutputs`, with the query
 * a presigned CDN URL has (`expires`, `signature`), valid until its output expires.
 */
export function outputUrlOf(ctx: UrlSite, job: SimJob): string {
  const url = `${outputOrigin(ctx)}/delivery/${job.provider}/${job.id}/output.mp4`;
  if (!job.signedOutputs) return url;
  const expires = String(Math.floor((completedAt(job) + job.outputTtlMs) / 1000));
  return `${url}?expires=${expires}&signature=${outputSignature(ctx.state.urlSigningKey, job.id, expires)}`;
}

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
