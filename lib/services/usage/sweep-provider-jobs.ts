import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { fingerprintOf } from "@/lib/domain/reconciliation-score";
import {
  JOB_SWEEP_INTERVAL_MS,
  JOB_SWEEP_MAX_PAGES,
  JOB_SWEEP_RETRY_MS,
  sweepWindow,
  sweptModels,
} from "@/lib/domain/unexplained-charges";
import type { VaultPolicy } from "@/lib/domain/vault";
import type { ConfiguredAdapters, ListedJob, ProviderAdapter } from "@/lib/providers";
import { requireWorker } from "../access/actor";
import { vaultListedCompletions } from "../vault/vault-listed-completions";
import { jobsNowOwned, rematchUsageLines } from "./rematch-usage-lines";

export type ProviderSweep = {
  provider: string;
  /** Jobs the provider listed in the window (every model asked). */
  listed: number;
  /** Listed jobs no attempt owns. */
  unowned: number;
  /** Of those, seen for the first time. */
  added: number;
  /** Waiting usage lines matched because their job is owned now. */
  rematched: number;
  /** Every list answered in full: otherwise a job may be missing until the next sweep. */
  complete: boolean;
  /** Outputs of listed completions nobody told the product of, handed to the output vault (decision 075). */
  kept?: number;
  problem?: string;
};

/**
 * Takes the daily sweep if it is due (one worker of any number: the upsert that moves next_run_at
 * forward is the claim, as for retention) and runs it; null when it was not due. A deployment's
 * first tick (or one after the schedule row was lost) only schedules the first sweep a day later:
 * there is a day of jobs to list by then, and a fresh start does not spend its first tick on it.
 */
type SweepContext = { db: Db; adapters: ConfiguredAdapters; vault?: VaultPolicy };

export async function sweepProviderJobsIfDue(
  ctx: SweepContext,
  actor: Principal,
  options: { now?: Date; signal?: AbortSignal } = {},
): Promise<ProviderSweep[] | null> {
  requireWorker(actor);
  const now = options.now ?? new Date();
  const next = new Date(now.getTime() + JOB_SWEEP_INTERVAL_MS);
  const [taken] = await ctx.db.$queryRaw<{ last_run_at: Date | null }[]>`
    INSERT INTO job_sweep_schedule (id, next_run_at) VALUES (true, ${next})
    ON CONFLICT (id) DO UPDATE SET next_run_at = EXCLUDED.next_run_at, last_run_at = ${now}
     WHERE job_sweep_schedule.next_run_at <= ${now}
    RETURNING last_run_at`;
  if (!taken?.last_run_at) return null;
  const sweeps = await sweepProviderJobs(ctx, actor, { ...options, now });
  // A sweep the tick's deadline cut short is taken again within the hour, not a day later.
  const cutShort = options.signal?.aborted === true;
  await ctx.db.jobSweepSchedule.update({
    where: { id: true },
    data: {
      lastFound: sweeps.reduce((sum, s) => sum + s.added, 0),
      ...(cutShort ? { nextRunAt: new Date(now.getTime() + JOB_SWEEP_RETRY_MS) } : {}),
    },
  });
  return sweeps;
}

/**
 * Reads each searchable provider's own job list over the last day (decision 074): one call per
 * window, or per model the product knows where the list needs one (fal), through the adapter (GET
 * only, DESIGN rule 5), outside any transaction (rule 9). Each listed job no attempt owns, nor a
 * signed reference ties to one (rule 17), is recorded once by (provider, job ID), with its model,
 * creation time, status and request fingerprint (never the request). The list is of this
 * deployment's own account: the key the adapter calls with is the account's. A completion it shows of
 * an owned job no webhook or report told is handed to the output vault (decision 075).
 */
export async function sweepProviderJobs(
  ctx: SweepContext,
  actor: Principal,
  options: { now?: Date; signal?: AbortSignal } = {},
): Promise<ProviderSweep[]> {
  const worker = requireWorker(actor);
  const window = sweepWindow(options.now ?? new Date());
  const sweeps: ProviderSweep[] = [];
  for (const adapter of Object.values(ctx.adapters) as ProviderAdapter[]) {
    if (!adapter.capabilities.listJobs || !adapter.listJobs || options.signal?.aborted) continue;
    const { jobs, complete, problem } = await listWindow(ctx.db, adapter, window, options.signal);
    const sweep = await recordSweep(ctx.db, worker, adapter.provider, jobs, complete, problem);
    // A completion the list shows that no webhook or report told: its outputs go to the vault while they last.
    const kept = await vaultListedCompletions(ctx.db, adapter, jobs, {
      ...(ctx.vault ? { policy: ctx.vault } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    sweeps.push(kept > 0 ? { ...sweep, kept } : sweep);
  }
  return sweeps;
}

async function listWindow(
  db: Db,
  adapter: ProviderAdapter,
  window: { from: Date; to: Date },
  signal: AbortSignal | undefined,
): Promise<{ jobs: ListedJob[]; complete: boolean; problem?: string }> {
  const known = adapter.capabilities.listJobsRequiresModel
    ? (
        await db.$queryRaw<{ model: string }[]>`
          SELECT DISTINCT model FROM operations WHERE provider = ${adapter.provider} ORDER BY model LIMIT 200`
      ).map((r) => r.model)
    : [];
  const jobs = new Map<string, ListedJob>();
  let complete = true;
  let problem: string | undefined;
  for (const model of sweptModels(adapter.capabilities.listJobsRequiresModel, known)) {
    try {
      const result = await adapter.listJobs?.({ ...window, model, maxPages: JOB_SWEEP_MAX_PAGES }, { signal });
      if (!result) continue;
      for (const job of result.jobs) jobs.set(job.providerJobId, job);
      if (result.kind === "unknown") problem = result.reason;
      complete &&= result.kind === "ok" && result.complete;
    } catch (error) {
      complete = false;
      problem = error instanceof Error ? error.message.slice(0, 300) : String(error).slice(0, 300);
    }
  }
  return { jobs: [...jobs.values()], complete, ...(problem ? { problem } : {}) };
}

async function recordSweep(
  db: Db,
  actor: Principal,
  provider: string,
  jobs: ListedJob[],
  complete: boolean,
  problem: string | undefined,
): Promise<ProviderSweep> {
  return inTransaction(db, async (tx) => {
    const ids = jobs.map((job) => job.providerJobId);
    const owned = await tx.$queryRaw<{ job: string }[]>`
      SELECT provider_job_id AS job FROM attempts WHERE provider = ${provider} AND provider_job_id = ANY(${ids}::text[])
      UNION SELECT provider_job_id FROM job_references WHERE provider = ${provider} AND provider_job_id = ANY(${ids}::text[])`;
    const ownedIds = new Set(owned.map((r) => r.job));
    const unowned = jobs.filter((job) => !ownedIds.has(job.providerJobId));
    let added = 0;
    for (const job of unowned) {
      const created = new Date(job.createdAt);
      const [row] = await tx.$queryRaw<{ inserted: boolean }[]>`
        INSERT INTO unowned_jobs (provider, provider_job_id, model, job_created_at, status, provider_status, request_fingerprint)
        VALUES (${provider}, ${job.providerJobId}, ${job.model ?? null},
                ${Number.isNaN(created.getTime()) ? new Date() : created}, ${job.status}, ${job.providerStatus},
                ${fingerprintOf(job.input)})
        ON CONFLICT (provider, provider_job_id) DO UPDATE
          SET status = EXCLUDED.status, provider_status = EXCLUDED.provider_status, last_seen_at = now(),
              request_fingerprint = coalesce(unowned_jobs.request_fingerprint, EXCLUDED.request_fingerprint)
        RETURNING (xmax = 0) AS inserted`;
      if (row?.inserted) added += 1;
    }
    let rematched = 0;
    for (const job of await jobsNowOwned(tx, provider))
      rematched += await rematchUsageLines(tx, actor, { provider, providerJobId: job });
    const sweep: ProviderSweep = {
      provider,
      listed: jobs.length,
      unowned: unowned.length,
      added,
      rematched,
      complete,
      ...(problem ? { problem } : {}),
    };
    await recordAudit(tx, { actor, kind: "provider_jobs_swept", after: sweep });
    return sweep;
  });
}
