import { sql } from "./queue-seed";
import type { ClaimLog } from "./queue-workers";
import type { BenchCheck } from "./types";

export type Finding = { name: string; ok: boolean; detail: string };

/**
 * The exactly-once checks after a claim-and-finish run over `count` seeded actions, read from the
 * database (actions, cases, audit rows) and from what the workers themselves received.
 */
export async function queueChecks(url: string, label: string, count: number, claims: ClaimLog): Promise<Finding[]> {
  const [db] = await sql<{
    succeeded: string;
    reclaimed: string;
    resolved: string;
    changes: string;
    audits: string;
    claim_audits: string;
    distinct_claims: string;
    finish_audits: string;
  }>(
    url,
    `SELECT
       (SELECT count(*) FROM recovery_actions WHERE status = 'succeeded') AS succeeded,
       (SELECT count(*) FROM recovery_actions WHERE claim_count <> 1) AS reclaimed,
       (SELECT count(*) FROM cases WHERE state = 'resolved') AS resolved,
       (SELECT coalesce(sum(version - 2), 0) FROM cases) AS changes,
       (SELECT count(*) FROM audit_events) AS audits,
       (SELECT count(*) FROM audit_events WHERE kind = 'claimed') AS claim_audits,
       (SELECT count(DISTINCT (evidence->>'actionId', evidence->>'fencingToken')) FROM audit_events
         WHERE kind = 'claimed') AS distinct_claims,
       (SELECT count(*) FROM audit_events WHERE kind = 'recovery_succeeded') AS finish_audits`,
  );
  if (!db) throw new Error("no check row");
  const n = (text: string) => Number(text);
  const perAction = new Map<string, number>();
  const tokens = new Set<string>();
  for (const claim of claims) {
    perAction.set(claim.actionId, (perAction.get(claim.actionId) ?? 0) + 1);
    tokens.add(`${claim.actionId}/${claim.fencingToken}`);
  }
  const resolvedByWorkers = claims.filter((claim) => claim.outcome === "resolved").length;
  const onceEach = perAction.size === count && [...perAction.values()].every((times) => times === 1);
  return [
    {
      name: "each action finished exactly once",
      ok:
        n(db.succeeded) === count &&
        n(db.resolved) === count &&
        n(db.reclaimed) === 0 &&
        onceEach &&
        resolvedByWorkers === count,
      detail: `${label}: ${db.succeeded}/${count} actions succeeded, ${db.resolved} cases resolved, ${db.reclaimed} claimed twice; workers received ${claims.length} claims for ${perAction.size} actions, ${resolvedByWorkers} finished`,
    },
    {
      name: "fencing tokens unique",
      ok: tokens.size === claims.length && n(db.distinct_claims) === n(db.claim_audits),
      detail: `${label}: ${tokens.size} distinct (action, token) of ${claims.length} claims received; ${db.distinct_claims} distinct of ${db.claim_audits} claim audit rows`,
    },
    {
      name: "audit rows == state changes",
      ok: n(db.audits) === n(db.changes) && n(db.claim_audits) === count && n(db.finish_audits) === count,
      detail: `${label}: ${db.audits} audit rows for ${db.changes} case version changes (${db.claim_audits} claimed, ${db.finish_audits} resolved)`,
    },
  ];
}

/** One check per property over many runs: passed only if every run passed; the detail says where not. */
export function foldChecks(part: string, prefix: string, runs: Finding[][]): BenchCheck[] {
  const names = [...new Set(runs.flat().map((finding) => finding.name))];
  return names.map((name) => {
    const findings = runs.flat().filter((finding) => finding.name === name);
    const failed = findings.filter((finding) => !finding.ok);
    return {
      part,
      name: `${prefix}: ${name}`,
      ok: failed.length === 0,
      detail:
        failed.length > 0
          ? failed.map((finding) => finding.detail).join("; ")
          : `${findings.length} runs; e.g. ${findings[0]?.detail ?? ""}`,
    };
  });
}
