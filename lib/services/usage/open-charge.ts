import type { Prisma } from "@/lib/db/client";
import { actorColumns, type Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";

export type OpenLine = {
  id: string;
  provider: string;
  provider_job_id: string | null;
  amount_micros: bigint;
  currency: string;
};
export type OpenCharge = { jobId: string | null; lines: OpenLine[]; listedJob: string | null };

/**
 * A charge still unexplained, its rows locked for the caller's compare-and-set (decision 074): its
 * usage lines no hold took and nobody explained, and its listed job nobody resolved. A charge that
 * was attached or explained meanwhile is refused as such; one that never existed is not found.
 */
export async function lockOpenCharge(
  tx: Prisma.TransactionClient,
  key: { provider: string; providerJobId?: string | undefined; usageLineId?: string | undefined },
): Promise<OpenCharge> {
  const byJob = key.providerJobId ?? null;
  const lines = await tx.$queryRaw<(OpenLine & { open: boolean })[]>`
    SELECT id::text, provider, provider_job_id, amount_micros, currency,
           (hold_ref IS NULL AND explained_at IS NULL) AS open
    FROM usage_lines
    WHERE provider = ${key.provider}
      AND (${byJob}::text IS NOT NULL AND provider_job_id = ${byJob}
           OR ${byJob}::text IS NULL AND id = ${key.usageLineId ?? null}::uuid AND provider_job_id IS NULL)
    ORDER BY usage_at, id FOR UPDATE`;
  const jobs =
    byJob === null
      ? []
      : await tx.$queryRaw<{ id: string; open: boolean }[]>`
          SELECT id::text, (resolution IS NULL) AS open FROM unowned_jobs
          WHERE provider = ${key.provider} AND provider_job_id = ${byJob} FOR UPDATE`;
  if (lines.length === 0 && jobs.length === 0) throw new AppError("not_found", "No such charge.");
  const open = lines.filter((line) => line.open);
  const listedJob = jobs.find((job) => job.open)?.id ?? null;
  if (open.length === 0 && listedJob === null)
    throw new AppError("conflict", "This charge is already explained or attached; reload the list.");
  return { jobId: byJob, lines: open.map(({ open: _, ...line }) => line), listedJob };
}

/** Someone else attached or explained the charge between its lock and this write. */
export const LOST_CHARGE = () => new AppError("lost_race", "Someone else acted on this charge first; reload.");

/**
 * The listed job leaves the count: a compare-and-set on "unresolved", refused as a lost race if
 * someone else resolved it first.
 */
export async function resolveListedJob(
  tx: Prisma.TransactionClient,
  actor: Principal,
  listedJob: string,
  input: { resolution: "attached" | "known_outside"; reason: string; attemptRef?: string },
): Promise<void> {
  const { count } = await tx.unownedJob.updateMany({
    where: { id: listedJob, resolution: null },
    data: { ...input, resolvedAt: new Date(), resolvedBy: actorColumns(actor).actorLabel },
  });
  if (count === 0) throw LOST_CHARGE();
}
