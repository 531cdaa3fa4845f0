import type { SeenRequest } from "./drain-simulator";
import { sql } from "./queue-seed";

export type DrainFinding = { name: string; ok: boolean; detail: string };

/**
 * Exactly-once, read twice: from what the provider saw (one answered status request and one
 * download per job, no create at all) and from what the database recorded (per case one observed
 * completion, one settled hold with one settle entry, one published asset, one resolution).
 */
export async function drainChecks(
  url: string,
  provider: { seen: SeenRequest[]; creates: number },
  jobs: string[],
): Promise<DrainFinding[]> {
  const answered = new Map<string, number>();
  const downloads = new Map<string, number>();
  const { seen, creates } = provider;
  for (const request of seen) {
    const status = request.path.match(/^\/replicate\/v1\/predictions\/([^/]+)$/);
    const download = request.path.match(/^\/delivery\/replicate\/([^/]+)\//);
    if (status?.[1] && !request.throttled) answered.set(status[1], (answered.get(status[1]) ?? 0) + 1);
    if (download?.[1]) downloads.set(download[1], (downloads.get(download[1]) ?? 0) + 1);
  }
  const onceEach = (counts: Map<string, number>) => jobs.filter((job) => counts.get(job) === 1).length;
  const extra = (counts: Map<string, number>) => [...counts.values()].reduce((sum, n) => sum + Math.max(0, n - 1), 0);
  const [db] = await sql<Record<string, string>>(
    url,
    `SELECT
       (SELECT count(*) FROM cases WHERE state = 'resolved' AND outcome = 'delivered') AS delivered,
       (SELECT count(DISTINCT case_id) FROM audit_events WHERE kind = 'completion_observed') AS observed_cases,
       (SELECT count(*) FROM audit_events WHERE kind = 'completion_observed') AS observed,
       (SELECT count(*) FROM audit_events WHERE kind = 'recovery_succeeded') AS succeeded,
       (SELECT count(*) FROM audit_events WHERE kind = 'hold_settled') AS settled_audits,
       (SELECT count(*) FROM provider_observations WHERE kind = 'completed') AS completed_observations,
       (SELECT count(*) FROM assets WHERE published_at IS NOT NULL) AS published,
       (SELECT count(*) FROM assets) AS stored,
       (SELECT count(*) FROM ledger_entries WHERE kind = 'settle') AS settle_entries,
       (SELECT count(*) FROM holds WHERE status = 'settled') AS settled_holds`,
  );
  const n = (key: string) => Number(db?.[key]);
  const count = jobs.length;
  const throttled = seen.filter((request) => request.throttled).length;
  return [
    {
      name: "no double execution at the provider",
      ok: onceEach(answered) === count && onceEach(downloads) === count && creates === 0,
      detail: `${onceEach(answered)}/${count} jobs answered exactly once (${extra(answered)} extra), ${onceEach(downloads)}/${count} downloaded exactly once (${extra(downloads)} extra), ${throttled} throttled requests, ${creates} creates`,
    },
    {
      name: "no double execution in the audit log",
      ok: [
        "delivered",
        "observed_cases",
        "observed",
        "succeeded",
        "settled_audits",
        "completed_observations",
        "published",
        "stored",
        "settle_entries",
        "settled_holds",
      ].every((key) => n(key) === count),
      detail: `${n("delivered")} delivered; per case: ${n("observed")} completions observed (${n("observed_cases")} cases), ${n("settled_audits")} holds settled (${n("settle_entries")} settle entries), ${n("published")} assets published of ${n("stored")}, ${n("succeeded")} resolutions`,
    },
  ];
}
