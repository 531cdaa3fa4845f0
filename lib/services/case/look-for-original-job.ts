import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { isStrongMatch, type ScoredJob, scoreListedJob } from "@/lib/domain/reconciliation-score";
import { sanitise } from "@/lib/domain/sanitise";
import { AppError } from "@/lib/errors";
import type { ConfiguredAdapters, ListedJob, ProviderAdapter } from "@/lib/providers";
import { canBeSearched } from "@/lib/providers/capabilities";
import { type Lookup, lookUp } from "./provider-lookup";
import { SUGGESTION_WINDOW_MS } from "./suggest-reconciliations";

/** The provider observation kind of a check made before (or after) paying for a replacement. */
export const FRESH_CHECK_KIND = "original_job_check";

export type OriginalJobMatch = { job: ListedJob; score: ScoredJob };

export type OriginalJobCheck =
  | { kind: "nothing_found"; lookups: Lookup[] }
  | { kind: "found"; lookups: Lookup[]; matches: OriginalJobMatch[] }
  | { kind: "failed"; lookups: Lookup[]; reason: string };

type CheckedCase = {
  id: string;
  attemptRef: string;
  attemptId: string;
  provider: string;
  model: string;
  submittedAt: Date | null;
  openedAt: Date;
  fingerprint: string;
};

/** True when the case's current episode reached its failure through a "no job exists" verdict. */
export async function restsOnNoJob(db: Db, caseId: string, episode: number): Promise<boolean> {
  const verdict = await db.auditEvent.findFirst({
    where: { caseId, episode, kind: "reconciled_no_job" },
    select: { id: true },
  });
  return verdict !== null;
}

/**
 * Rule 14 needs a fresh search before paying again on a "no job exists" verdict; a provider that can
 * neither list jobs nor find one by client reference cannot be searched, so such a replacement is
 * refused up front with the reason and the case's other way out (accepting the failure), instead of
 * a check that could never succeed.
 */
export async function refuseUnsearchableNoJob(db: Db, row: { id: string; episode: number; provider: string }) {
  if (canBeSearched(row.provider)) return;
  if (!(await restsOnNoJob(db, row.id, row.episode))) return;
  throw new AppError(
    "provider_cannot_be_searched",
    `${row.provider} cannot be searched for the original job (no job list, no client-reference lookup), so no replacement can rest on "no job exists" here: the job may exist and be charged. Accept the failure instead.`,
  );
}

export async function checkedCase(db: Db, caseId: string): Promise<CheckedCase> {
  const row = await db.case.findUniqueOrThrow({
    where: { id: caseId },
    include: { operation: { select: { requestFingerprint: true } } },
  });
  return { ...row, fingerprint: row.operation.requestFingerprint };
}

/**
 * Asks the provider, now, whether the job that "no job exists" denied is visible after all (see
 * `CheckMode` for what counts): a job of the same model at about the same time whose request
 * the provider still shows, and shows different, is someone else's. Any answer short of a complete
 * one is a failed check.
 * Never call this inside a database transaction: it waits on the provider.
 */
export async function lookForOriginalJob(
  db: Db,
  adapters: ConfiguredAdapters | undefined,
  row: CheckedCase,
  mode: CheckMode,
  signal?: AbortSignal,
): Promise<OriginalJobCheck> {
  const adapter = adapters ? (adapters as Partial<Record<string, ProviderAdapter>>)[row.provider] : undefined;
  const searchable =
    adapter !== undefined &&
    ((adapter.capabilities.listJobs && adapter.listJobs !== undefined) ||
      (adapter.capabilities.findByClientReference && adapter.findByClientReference !== undefined));
  if (!adapter || !searchable) {
    return { kind: "failed", lookups: [], reason: `no ${row.provider} adapter that can search for the job` };
  }
  const reference = row.submittedAt ?? row.openedAt;
  let found: Awaited<ReturnType<typeof lookUp>>;
  try {
    found = await lookUp(
      adapter,
      {
        from: new Date(reference.getTime() - SUGGESTION_WINDOW_MS),
        to: new Date(reference.getTime() + SUGGESTION_WINDOW_MS),
        model: row.model,
        clientReference: row.attemptId,
      },
      signal,
    );
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { kind: "failed", lookups: [], reason: `the search failed: ${reason.slice(0, 300)}` };
  }
  const { lookups, candidates } = found;
  if (lookups.some((l) => l.outcome !== "ok")) {
    return { kind: "failed", lookups, reason: "the provider's answer was incomplete or unknown" };
  }
  const ids = [...candidates.keys()];
  const weakAllowed = mode.kind === "before_paying" ? await undismissedWeak(db, row.id, mode.episode, ids) : new Set();
  // The operation's own jobs (a replacement already bought, say) are not the original. A job
  // recorded for another operation still counts: another shop's mistaken registration must not make
  // this one pay again (uncertainty never pays); the suggestion it becomes says whose it is, and
  // people sort out which operation it belongs to. Before paying, the original attempt's own job is
  // not "ours" either: it is the job a "not found" check denied (decision 068), and it turning up is
  // exactly what must stop the replacement.
  const original = mode.kind === "before_paying" ? { id: { not: row.attemptRef } } : {};
  const ours = new Set(
    ids.length === 0
      ? []
      : (
          await db.attempt.findMany({
            where: { providerJobId: { in: ids }, operation: { case: { id: row.id } }, ...original },
            select: { providerJobId: true },
          })
        ).map((a) => a.providerJobId),
  );
  const target = { model: row.model, fingerprint: row.fingerprint, submittedAt: row.submittedAt };
  const matches = [...candidates.values()]
    .filter(({ job }) => !ours.has(job.providerJobId))
    .map(({ job, viaReference }) => ({ job, score: scoreListedJob(job, target, viaReference) }))
    .filter(
      (m): m is OriginalJobMatch =>
        m.score !== null &&
        (isStrongMatch(m.score) ||
          (weakAllowed.has(m.job.providerJobId) &&
            cannotBeRuledOut(m.job, m.score, adapter.capabilities.requestCopyMayDiffer === true))),
    )
    .sort((a, b) => b.score.confidence - a.score.confidence);
  return matches.length > 0 ? { kind: "found", lookups, matches } : { kind: "nothing_found", lookups };
}

/**
 * How the check is used. Before paying, a job that cannot be ruled out blocks the replacement, unless
 * a reviewer already saw it as a suggestion and then said again that no job exists; when watching
 * after a replacement was bought, only proof of the original flags a duplicate.
 */
export type CheckMode = { kind: "before_paying"; episode: number } | { kind: "watch" };

/**
 * A job of the same model created within a minute of the submission whose copy of the request the
 * provider no longer keeps (Replicate drops API predictions' input after its retention period)
 * cannot be told apart from the original, even when another operation recorded it: a shop that
 * copied the wrong job ID would otherwise make this one pay again.
 */
function cannotBeRuledOut(job: ListedJob, score: ScoredJob, copyMayDiffer: boolean): boolean {
  if (requestKept(job.input) && !copyMayDiffer) return false;
  return score.matched.includes("model") && score.matched.includes("submitted_within_60s");
}

/** The candidates no reviewer has yet set aside by a "no job exists" verdict made after seeing them. */
async function undismissedWeak(db: Db, caseId: string, episode: number, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const seen = await db.$queryRaw<{ id: string }[]>(Prisma.sql`
    SELECT s.provider_job_id AS id FROM reconciliation_suggestions s
    WHERE s.case_id = ${caseId}::uuid AND s.episode = ${episode} AND s.provider_job_id = ANY(${ids})
      AND s.created_at < (SELECT max(e.created_at) FROM audit_events e
                          WHERE e.case_id = ${caseId}::uuid AND e.episode = ${episode} AND e.kind = 'reconciled_no_job')`);
  const setAside = new Set(seen.map((r) => r.id));
  return new Set(ids.filter((id) => !setAside.has(id)));
}

const requestKept = (input: unknown) =>
  input !== undefined && input !== null && !(typeof input === "object" && Object.keys(input).length === 0);

/** Evidence of what was asked and seen; the provider's copy of the request is never part of it. */
export function checkEvidence(check: OriginalJobCheck, purpose: string) {
  return sanitise({
    purpose,
    outcome: check.kind,
    lookups: check.lookups,
    ...(check.kind === "failed" ? { reason: check.reason } : {}),
    ...(check.kind === "found"
      ? {
          matches: check.matches.map((m) => ({
            providerJobId: m.job.providerJobId,
            providerStatus: m.job.providerStatus,
            confidence: m.score.confidence,
            matched: m.score.matched,
          })),
        }
      : {}),
  });
}

/** Appends the check to the case's provider observations (its own statement, after the call). */
export async function recordCheck(db: Db, row: CheckedCase, check: OriginalJobCheck, purpose: string) {
  const status = check.kind === "found" ? (check.matches[0]?.job.providerStatus ?? null) : null;
  await db.$executeRaw(Prisma.sql`
    INSERT INTO provider_observations (case_id, attempt_ref, kind, provider_status, detail)
    VALUES (${row.id}::uuid, ${row.attemptRef}::uuid, ${FRESH_CHECK_KIND}, ${status},
            ${JSON.stringify(checkEvidence(check, purpose))}::jsonb)`);
}
