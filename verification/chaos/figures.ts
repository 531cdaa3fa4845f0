import type pg from "pg";
import type { JobCalls } from "../shared/simulator-requests";
import type { SeededAction } from "./seed";

/**
 * How a claim begins and ends, read from the audit rows' own before and after states rather than a
 * list of kinds: a row that takes the case into `claimed` is a claim, one that takes it out of
 * `claimed` ends that claim, either finishing the action (to parked or resolved, whatever the kind:
 * recovery_unresolved, outputs_unavailable_observed, poison_parked...) or handing it back (to ready:
 * rescheduled, released, rescued). A list of kinds went stale when outputs found gone got their own.
 */
type ClaimTally = { claims: number; finishes: number; handBacks: number; rescues: number };
type ActionRow = {
  id: string;
  case_id: string;
  status: string;
  claim_count: number;
  fencing_token: number;
  finished_ms: number | null;
  case_state: string;
  case_stage: string;
};

export type ChaosFigures = ReturnType<typeof emptyFigures>;

function emptyFigures() {
  return {
    actionsSeeded: 0,
    executedToCompletion: 0,
    safelyReparked: 0,
    leftReadyOrClaimed: 0,
    endedNotAsPlanned: 0,
    lostCases: 0,
    doubleExecutionsAudit: 0,
    claimsUnaccounted: 0,
    holdsNotAsPlanned: 0,
    leasesRescued: 0,
    claims: 0,
    doubleExecutionsProvider: 0,
    providerCallsAfterFinish: 0,
    deliveredWithoutDownload: 0,
    providerCreateCalls: 0,
    /** Per scenario: seeded, executed to completion, safely re-parked. */
    byScenario: {} as Record<string, { seeded: number; completed: number; reparked: number }>,
  };
}

async function rows<T>(pool: pg.Pool, sql: string): Promise<T[]> {
  return (await pool.query(sql)).rows as T[];
}

/**
 * Every figure the chaos run is judged by, read from the database (actions, cases, audit trail,
 * holds, assets) and cross-checked against the provider's own request log.
 */
export async function chaosFigures(
  pool: pg.Pool,
  seeded: SeededAction[],
  provider: { byJob: Map<string, JobCalls>; createCalls: number },
): Promise<ChaosFigures> {
  const f = emptyFigures();
  f.actionsSeeded = seeded.length;
  f.providerCreateCalls = provider.createCalls;
  const actions = new Map(
    (
      await rows<ActionRow>(
        pool,
        `SELECT a.id, a.case_id, a.status::text, a.claim_count, a.fencing_token::int,
                (extract(epoch FROM a.finished_at) * 1000)::float8 AS finished_ms,
                c.state::text AS case_state, c.stage::text AS case_stage
         FROM recovery_actions a JOIN cases c ON c.id = a.case_id`,
      )
    ).map((row) => [row.id, row]),
  );
  const audit = new Map<string, ClaimTally>();
  for (const row of await rows<{
    case_id: string;
    claims: number;
    finishes: number;
    hand_backs: number;
    rescues: number;
  }>(
    pool,
    `SELECT case_id,
            count(*) FILTER (WHERE entered)::int AS claims,
            count(*) FILTER (WHERE left_claim AND to_state IN ('parked', 'resolved'))::int AS finishes,
            count(*) FILTER (WHERE left_claim AND to_state = 'ready')::int AS hand_backs,
            count(*) FILTER (WHERE kind = 'lease_rescued')::int AS rescues
     FROM (SELECT case_id, kind, after->>'state' AS to_state,
                  after->>'state' = 'claimed' AND before->>'state' IS DISTINCT FROM 'claimed' AS entered,
                  before->>'state' = 'claimed' AND after->>'state' IS DISTINCT FROM 'claimed' AS left_claim
           FROM audit_events WHERE case_id IS NOT NULL) moves
     GROUP BY case_id`,
  )) {
    audit.set(row.case_id, {
      claims: row.claims,
      finishes: row.finishes,
      handBacks: row.hand_backs,
      rescues: row.rescues,
    });
  }
  const holds = new Map(
    (
      await rows<{ case_id: string; status: string; settles: number }>(
        pool,
        `SELECT h.case_id, h.status::text, count(l.id) FILTER (WHERE l.kind = 'settle')::int AS settles
         FROM holds h LEFT JOIN ledger_entries l ON l.hold_ref = h.id GROUP BY h.id`,
      )
    ).map((row) => [row.case_id, row]),
  );
  const assets = new Map(
    (
      await rows<{ case_id: string; assets: number; claims: number }>(
        pool,
        `SELECT case_id, count(*)::int AS assets, count(DISTINCT fencing_token)::int AS claims
         FROM assets WHERE published_at IS NOT NULL GROUP BY 1`,
      )
    ).map((row) => [row.case_id, row]),
  );
  // Two status answers under one claim mean two checks. The outputs_unavailable row a finish writes
  // records why a copy failed (it follows the claim's one status answer), so it is not a second check.
  const [twiceObserved] = await rows<{ n: number }>(
    pool,
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM provider_observations
       WHERE action_id IS NOT NULL AND kind <> 'outputs_unavailable'
       GROUP BY action_id, fencing_token HAVING count(*) > 1) twice`,
  );
  f.doubleExecutionsAudit += twiceObserved?.n ?? 0;

  for (const item of seeded) {
    const action = actions.get(item.actionId);
    if (!action || action.case_id !== item.caseId) {
      f.lostCases += 1;
      continue;
    }
    const tallied = audit.get(item.caseId) ?? { claims: 0, finishes: 0, handBacks: 0, rescues: 0 };
    const claimed = tallied.claims;
    f.claims += claimed;
    f.leasesRescued += tallied.rescues;
    if (action.status === "ready" || action.status === "claimed") f.leftReadyOrClaimed += 1;
    if (action.case_state === "ready" || action.case_state === "claimed") f.lostCases += 1;
    const tally = f.byScenario[item.scenario.name] ?? { seeded: 0, completed: 0, reparked: 0 };
    f.byScenario[item.scenario.name] = tally;
    tally.seeded += 1;
    if (action.status === "succeeded") {
      f.executedToCompletion += 1;
      tally.completed += 1;
    }
    if (action.status === "unresolved" && action.case_state === "parked") {
      f.safelyReparked += 1;
      tally.reparked += 1;
    }
    const expected = item.scenario.expect;
    if (
      action.status !== expected.status ||
      action.case_state !== expected.caseState ||
      action.case_stage !== expected.stage
    ) {
      f.endedNotAsPlanned += 1;
    }
    const published = assets.get(item.caseId);
    if (tallied.finishes > 1 || (published && (published.assets > 1 || published.claims > 1)))
      f.doubleExecutionsAudit += 1;
    // Every claim ends exactly one way: finished, or handed back (rescheduled, released, rescued).
    const ended = tallied.finishes + tallied.handBacks;
    if (claimed !== action.claim_count || claimed !== ended || action.fencing_token !== claimed) {
      f.claimsUnaccounted += 1;
    }
    const hold = holds.get(item.caseId);
    const settledOnCompletion = item.scenario.stage === "polling" && expected.status === "succeeded";
    if (!hold || hold.settles > 1 || hold.status !== (settledOnCompletion ? "settled" : "held")) {
      f.holdsNotAsPlanned += 1;
    }
    checkProviderLog(f, provider.byJob.get(item.jobId), action);
  }
  return f;
}

/**
 * The provider's side of the story: each claim makes at most one status check and one download,
 * nothing reaches the provider about a job once its action has finished, and every delivered
 * action really downloaded its output.
 */
function checkProviderLog(f: ChaosFigures, calls: JobCalls | undefined, action: ActionRow) {
  const status = calls?.status ?? [];
  const downloads = calls?.download ?? [];
  if (status.length > action.claim_count || downloads.length > action.claim_count) f.doubleExecutionsProvider += 1;
  if (action.status === "succeeded" && downloads.length === 0) f.deliveredWithoutDownload += 1;
  const finished = action.finished_ms;
  if (finished !== null) {
    const late = [...status, ...downloads, ...(calls?.result ?? [])].filter((at) => at > finished);
    if (late.length > 0) f.providerCallsAfterFinish += 1;
  }
}
