import { randomBytes } from "node:crypto";
import { outputBytes, sha256Hex } from "./bytes";
import type { Clock } from "./clock";
import { defaultPrices } from "./costs";
import { FaultBook, type RateLimiter } from "./faults";
import { buildJob, type JobSpec, type JobTimings, phaseOf, type SimJob, type SimProvider } from "./jobs";
import { SIMULATOR_PROVIDERS } from "./providers";
import { WebhookSender } from "./webhooks";

export type RequestLogEntry = { method: string; path: string; query: string; at: string; atMs: number };

const MAX_LOG = 5_000;
/** How many outputs stay in memory (the most recently served); the rest are regenerated on demand. */
export const MAX_CACHED_OUTPUTS = 16;

const noCreates = () =>
  Object.fromEntries(Object.keys(SIMULATOR_PROVIDERS).map((name) => [name, 0])) as Record<SimProvider, number>;

/**
 * Everything the simulator knows, shared by its routes and exposed to in-process tests. Jobs added
 * with `seedJob` stand for jobs that already exist at the provider; only the create routes count
 * as create calls.
 */
export class SimulatorState {
  readonly jobs = new Map<string, SimJob>();
  readonly faults = new FaultBook();
  rateLimit: RateLimiter | undefined;
  /**
   * Origin written into output URLs instead of the simulator's own, when outputs are served elsewhere
   * (an https front: Replicate's FileOutput and genai's files.download take only https URLs).
   */
  outputOrigin: string | undefined;
  /** What each model costs (./costs.ts), in the product's price-table shape; `POST /__admin/prices` changes it. */
  readonly prices = defaultPrices();
  /** Replicate returns 100 predictions per page; tests lower it to exercise the cursor. */
  listPageSize = 100;
  private creates = noCreates();
  private cancels = noCreates();
  private log: RequestLogEntry[] = [];
  private outputs = new Map<string, Buffer>();

  readonly webhooks: WebhookSender;
  /** Signs the output URLs of jobs seeded with `signedOutputs`, as a CDN signs presigned URLs. */
  readonly urlSigningKey = randomBytes(32);

  constructor(
    readonly clock: Clock,
    readonly timings: JobTimings,
    replicateWebhookSecret?: string,
    manualWebhooks = false,
  ) {
    this.webhooks = new WebhookSender(replicateWebhookSecret, manualWebhooks);
  }

  seedJob(spec: JobSpec): SimJob {
    return this.store(buildJob(spec, SIMULATOR_PROVIDERS[spec.provider], this.timings, this.clock.now(), false));
  }

  /** Counted before anything else happens to the call, so even a create that then fails shows up. */
  countCreate(provider: SimProvider): void {
    this.creates[provider] += 1;
  }

  /**
   * Cancel and delete calls (Replicate's and fal's cancel, Runway's and Luma's delete), counted like
   * creates: the recovery path never sends one, and its tests prove it by this count staying 0.
   */
  countCancel(provider: SimProvider): void {
    this.cancels[provider] += 1;
  }

  cancelCount(provider?: SimProvider): number {
    return provider ? this.cancels[provider] : Object.values(this.cancels).reduce((sum, n) => sum + n, 0);
  }

  createJob(spec: JobSpec): SimJob {
    return this.store(buildJob(spec, SIMULATOR_PROVIDERS[spec.provider], this.timings, this.clock.now(), true));
  }

  private store(job: SimJob): SimJob {
    if (this.jobs.has(job.id)) throw new Error(`job ${job.id} already exists`);
    this.jobs.set(job.id, job);
    return job;
  }

  find(provider: SimProvider, id: string): SimJob | undefined {
    const job = this.jobs.get(id);
    return job?.provider === provider ? job : undefined;
  }

  /**
   * The bytes an output URL serves. A job's output never changes, so the most recently used ones
   * are cached, but only a few: keeping every job's output grew a long-running simulator by the
   * output's full size (half a MiB by default) with each job downloaded.
   */
  output(job: SimJob): Buffer {
    let bytes = this.outputs.get(job.id);
    if (bytes) this.outputs.delete(job.id);
    else bytes = outputBytes(job.outputSeed, job.outputBytes);
    this.outputs.set(job.id, bytes);
    for (const oldest of this.outputs.keys()) {
      if (this.outputs.size <= MAX_CACHED_OUTPUTS) break;
      this.outputs.delete(oldest);
    }
    return bytes;
  }

  /** How many outputs are held in memory right now (bounded by MAX_CACHED_OUTPUTS). */
  get cachedOutputs(): number {
    return this.outputs.size;
  }

  expectedOutput(id: string): { size: number; sha256: string } | undefined {
    const job = this.jobs.get(id);
    if (!job) return undefined;
    return { size: job.outputBytes, sha256: sha256Hex(this.output(job)) };
  }

  createCount(provider?: SimProvider): number {
    return provider ? this.creates[provider] : Object.values(this.creates).reduce((sum, n) => sum + n, 0);
  }

  record(method: string, path: string, query: string): void {
    const atMs = Date.now();
    this.log.push({ method, path, query, at: new Date(atMs).toISOString(), atMs });
    if (this.log.length > MAX_LOG) this.log.splice(0, this.log.length - MAX_LOG);
  }

  requests(filter?: { method?: string; pathIncludes?: string }): RequestLogEntry[] {
    return this.log.filter(
      (entry) =>
        (!filter?.method || entry.method === filter.method) &&
        (!filter?.pathIncludes || entry.path.includes(filter.pathIncludes)),
    );
  }

  stats() {
    const now = this.clock.now();
    const phases: Record<string, number> = {};
    for (const job of this.jobs.values()) {
      const phase = phaseOf(job, now);
      phases[phase] = (phases[phase] ?? 0) + 1;
    }
    return {
      creates: { ...this.creates, total: this.createCount() },
      cancels: { ...this.cancels, total: this.cancelCount() },
      jobs: { total: this.jobs.size, byPhase: phases },
      faults: this.faults.list(),
      rateLimit: this.rateLimit ? { requestsPerSecond: this.rateLimit.requestsPerSecond } : null,
      requests: [...this.log],
    };
  }

  reset(): void {
    this.jobs.clear();
    this.outputs.clear();
    this.faults.clear();
    this.webhooks.reset();
    this.rateLimit = undefined;
    this.prices.clear();
    for (const [key, price] of defaultPrices()) this.prices.set(key, price);
    this.creates = noCreates();
    this.cancels = noCreates();
    this.log = [];
  }
}
