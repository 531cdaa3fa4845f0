import type { UserActor } from "@/lib/services/access/actor";
import { HOLDS_NOT_INVOICED_PAGE, listHoldsNotInvoiced } from "@/lib/services/usage/list-holds-not-invoiced";
import { moveJobToSend } from "@/lib/services/usage/move-job-to-send";
import type { Steps } from "./steps";
import { count, producerOf, reportedJobId, type World } from "./world";

type Provider = Parameters<typeof moveJobToSend>[2]["provider"];
/** A send finance names: the case of its operation and the attempt. */
type Send = { caseId: string; attemptId: string; operation: number };

/**
 * Finance reads the holds charged that no invoice line names (decision 084). One whose send records
 * no job may be a send whose job another shop named as its own: finance asks the shop which job it
 * made (the run's ground truth) and, when another send records that job, moves it here.
 */
export async function moveJobsToTheirSends(world: World, steps: Steps, finance: UserActor): Promise<void> {
  for (let page = 1; ; page += 1) {
    const holds = await listHoldsNotInvoiced(world.db, finance, { page });
    for (const hold of holds.filter((h) => h.providerJobId === null && h.caseId !== null)) {
      const index = world.ops.findIndex(
        (op) => op.plan.operationId === hold.operationId && producerOf(world, op).principal.name === hold.producer,
      );
      const jobId = world.ops[index]?.attempts.find((a) => a.attemptId === hold.attemptId)?.jobId;
      if (!jobId || !hold.caseId) continue;
      const named = reportedJobId(world, jobId);
      const { rows } = await world.sql.query(`SELECT 1 FROM attempts WHERE provider = $1 AND provider_job_id = $2`, [
        hold.provider,
        named,
      ]);
      if (rows.length === 0) continue;
      const send = { caseId: hold.caseId, attemptId: hold.attemptId, operation: index };
      await moveJob(world, steps, finance, hold.provider as Provider, named, send, "its hold was charged with no line");
    }
    if (holds.length < HOLDS_NOT_INVOICED_PAGE) return;
  }
}

/** Shops that named each other's jobs in a chain: how many links finance follows. */
const MAX_CHAIN = 3;

/**
 * An attach finance tried was refused because the send already records a job: its shop named
 * another operation's job as its own. Finance asks which operation made that job and moves it
 * there; when that send in turn records a job its own shop named in place of it, that one is moved
 * away first (the product's refusal says so). False when it could not be moved.
 */
export async function moveNamedJobAway(
  world: World,
  steps: Steps,
  finance: UserActor,
  attach: Send,
  chain = 0,
): Promise<boolean> {
  const { rows } = await world.sql.query<{ job: string | null; provider: string }>(
    `SELECT a.provider_job_id AS job, a.provider FROM cases c JOIN attempts a ON a.operation_ref = c.operation_ref
     WHERE c.id = $1 AND a.attempt_id = $2`,
    [attach.caseId, attach.attemptId],
  );
  const named = rows[0]?.job;
  const known = named ? world.byJob.get(named) : undefined;
  const maker = known ? world.ops[known.index] : undefined;
  const attemptId = maker?.attempts.find((attempt) => attempt.jobId === known?.jobId)?.attemptId;
  if (!named || !known || known.index === attach.operation || !maker?.caseId || !attemptId) {
    count(world, "reconciliation: a send's named job not moved (no other operation's case made it)");
    return false;
  }
  const send = { caseId: maker.caseId, attemptId, operation: known.index };
  const why = chain === 0 ? "an attach to the send that named it was refused" : "a move to the send was refused";
  if (chain < MAX_CHAIN && (await recordsJob(world, send)))
    await moveNamedJobAway(world, steps, finance, send, chain + 1);
  return moveJob(world, steps, finance, rows[0]?.provider as Provider, named, send, why);
}

async function recordsJob(world: World, send: Send): Promise<boolean> {
  const { rows } = await world.sql.query(
    `SELECT 1 FROM cases c JOIN attempts a ON a.operation_ref = c.operation_ref
     WHERE c.id = $1 AND a.attempt_id = $2 AND a.provider_job_id IS NOT NULL`,
    [send.caseId, send.attemptId],
  );
  return rows.length > 0;
}

async function moveJob(
  world: World,
  steps: Steps,
  finance: UserActor,
  provider: Provider,
  providerJobId: string,
  to: Send,
  found: string,
): Promise<boolean> {
  const moved = await steps.call(
    to.operation,
    "finance",
    "moves a job a shop named as its own to the send that made it",
    () =>
      moveJobToSend(world.db, finance, {
        provider,
        providerJobId,
        caseId: to.caseId,
        attemptId: to.attemptId,
        evidence: `operation ${world.ops[to.operation]?.plan.operationId}'s shop says its send made this job`,
      }),
    ["conflict", "not_found", "invalid_request", "invalid_transition", "provider_job_in_use"],
  );
  const outcome = moved.ok ? "moved to the send that made them" : `not moved (${moved.code})`;
  count(world, `reconciliation: misnamed jobs ${outcome}, found because ${found}`);
  return moved.ok;
}
