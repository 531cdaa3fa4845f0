import type { Principal } from "@/lib/domain/principal";
import { simulatorAdapters } from "@/lib/providers";
import type { UserActor } from "@/lib/services/access/actor";
import { applyWaitingUsage } from "@/lib/services/usage/apply-waiting-usage";
import { attachUnexplainedCharge } from "@/lib/services/usage/attach-unexplained-charge";
import { listUnexplainedCharges, type UnexplainedCharge } from "@/lib/services/usage/list-unexplained-charges";
import { markChargeKnownOutside } from "@/lib/services/usage/mark-charge-known-outside";
import { sweepProviderJobs } from "@/lib/services/usage/sweep-provider-jobs";
import { moveJobsToTheirSends, moveNamedJobAway } from "./move-misnamed-jobs";
import type { Steps } from "./steps";
import { count, simJobOf, type World } from "./world";

const PAGE_SIZE = 100;

/** The worker that takes the daily sweep and the round over waiting usage lines at the end of the run. */
const CLOSING_WORKER: Principal & { kind: "worker" } = {
  kind: "worker",
  tokenId: "00000000-0000-4000-8000-00000000e0e1",
  name: "sim-worker",
  workerId: "month-end",
};

/** What finance concludes about one charge from what the run knows of its job. */
type Conclusion =
  | { kind: "attach"; caseId: string; attemptId: string; operation: number; evidence: string; offered: string }
  | { kind: "outside"; operation: number | null; reason: string; counted: string };

/**
 * Finance goes through "Charges no operation explains" (decision 074) after the invoices were
 * imported, through the product's own services only: the daily job-list sweep first (as the
 * worker's round would), then each charge, a page at a time. A job an operation made is attached
 * to the send that made it (its case's uncertain submission, or an earlier send of a case that went
 * on without it, decision 080), whether or not the product offered that send among its best
 * candidates (how often it did is counted). Jobs a shop named as its own that another operation
 * made are moved to the send that made them (decision 084): first those the holds charged with no
 * invoice line point at, then any a refused attach meets ("one send makes one job"), after which the
 * attach is tried again. A create a shop's client sent again outside its
 * permits, or an operation's own job the product refuses to attach, is marked as known outside the
 * product with a reason in words. Which is which comes from the run's ground truth, as a diligent
 * person would find out by asking the shop.
 */
export async function reconcileCharges(world: World, steps: Steps, finance: UserActor): Promise<void> {
  const adapters = simulatorAdapters(world.simulator.url, {
    retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2, perAttemptTimeoutMs: 5_000, maxRetryAfterMs: 0 },
    random: () => 0.5,
  });
  await steps.call(null, "worker", "sweeps the providers' job lists", () =>
    sweepProviderJobs({ db: world.db, adapters }, CLOSING_WORKER, { now: new Date(world.clock.now()) }),
  );
  await moveJobsToTheirSends(world, steps, finance);
  const handled = new Set<string>();
  for (let page = 1; ; ) {
    const view = await listUnexplainedCharges(world.db, finance, { page, pageSize: PAGE_SIZE });
    const fresh = view.charges.filter((charge) => !handled.has(keyOf(charge)));
    for (const charge of fresh) {
      handled.add(keyOf(charge));
      world.invoices.listed.add(keyOf(charge));
      await settleCharge(world, steps, finance, charge);
    }
    if (fresh.length > 0) continue;
    if (view.charges.length < PAGE_SIZE) break;
    page += 1;
  }
}

/** Lets the product apply the usage lines that waited for their case's outcome, as the worker's round does. */
export async function applyWaitingLines(world: World, steps: Steps): Promise<void> {
  for (;;) {
    const outcome = await steps.call(null, "worker", "applies waiting usage lines", () =>
      applyWaitingUsage(world.db, CLOSING_WORKER),
    );
    if (!outcome.ok || outcome.value === 0) return;
    count(world, "usage lines applied after the month's reconciliation", outcome.value);
  }
}

const keyOf = (charge: UnexplainedCharge) => `${charge.provider}\u0000${charge.providerJobId ?? charge.usageLineId}`;

async function settleCharge(world: World, steps: Steps, finance: UserActor, charge: UnexplainedCharge) {
  const conclusion = conclude(world, charge);
  const provider = charge.provider as Parameters<typeof markChargeKnownOutside>[2]["provider"];
  if (conclusion.kind === "attach" && charge.providerJobId) {
    const { caseId, attemptId, operation, evidence } = conclusion;
    const providerJobId = charge.providerJobId;
    count(world, `reconciliation: the send that made the job ${conclusion.offered}`);
    const attached = await steps.call(
      operation,
      "finance",
      "attaches an unexplained charge to its operation",
      () => attachUnexplainedCharge(world.db, finance, { provider, providerJobId, caseId, attemptId, evidence }),
      ["conflict", "invalid_transition", "not_found", "invalid_request"],
    );
    if (attached.ok) return count(world, "reconciliation: charges attached to their operation");
    count(world, `reconciliation: attach refused by the product (${attached.code})`);
    if (attached.code === "conflict" && (await moveNamedJobAway(world, steps, finance, conclusion))) {
      const again = await steps.call(
        operation,
        "finance",
        "attaches an unexplained charge once the job its send named went to the send that made it",
        () => attachUnexplainedCharge(world.db, finance, { provider, providerJobId, caseId, attemptId, evidence }),
        ["conflict", "invalid_transition", "not_found", "invalid_request"],
      );
      if (again.ok) return count(world, "reconciliation: charges attached after moving a misnamed job");
    }
    return markOutside(world, steps, finance, charge, {
      kind: "outside",
      operation,
      reason: `the own job of operation ${world.ops[operation]?.plan.operationId}, which the product refused to attach`,
      counted: "an operation's own job the product refused to attach",
    });
  }
  if (conclusion.kind === "outside") return markOutside(world, steps, finance, charge, conclusion);
}

async function markOutside(
  world: World,
  steps: Steps,
  finance: UserActor,
  charge: UnexplainedCharge,
  conclusion: Extract<Conclusion, { kind: "outside" }>,
) {
  const provider = charge.provider as Parameters<typeof markChargeKnownOutside>[2]["provider"];
  const key = charge.providerJobId
    ? { providerJobId: charge.providerJobId }
    : { usageLineId: charge.usageLineId ?? "" };
  const marked = await steps.call(conclusion.operation, "finance", "marks a charge as known outside the product", () =>
    markChargeKnownOutside(world.db, finance, { provider, ...key, reason: conclusion.reason }),
  );
  if (marked.ok) count(world, `reconciliation: marked known outside: ${conclusion.counted}`);
}

function conclude(world: World, charge: UnexplainedCharge): Conclusion {
  const job = charge.providerJobId ? simJobOf(world, charge.providerJobId) : undefined;
  if (!job)
    return {
      kind: "outside",
      operation: null,
      reason: "a charge for a job no operation of any shop made",
      counted: "a job no operation made",
    };
  const outside = world.invoices.outsidePermits.get(job.id);
  if (outside !== undefined)
    return {
      kind: "outside",
      operation: outside,
      reason: `sent again by the shop's client outside its permit for operation ${world.ops[outside]?.plan.operationId}`,
      counted: "a create sent again outside the permits",
    };
  const index = world.byJob.get(job.id)?.index;
  const op = index === undefined ? undefined : world.ops[index];
  if (index === undefined || !op)
    return {
      kind: "outside",
      operation: null,
      reason: "a charge for a job no operation of any shop made",
      counted: "a job no operation made",
    };
  const attemptId = op.attempts.find((attempt) => attempt.jobId === job.id)?.attemptId;
  if (op.caseId && attemptId) {
    const offered = charge.candidates.find((c) => c.caseId === op.caseId && c.attemptId === attemptId);
    return {
      kind: "attach",
      caseId: op.caseId,
      attemptId,
      operation: index,
      evidence: `the shop confirmed this job is operation ${op.plan.operationId}'s own`,
      offered: offered
        ? `${charge.candidates[0] === offered ? "was offered first" : "was among those offered"}${offered.uncertain ? "" : " (an earlier send)"}`
        : `was not among the ${charge.candidates.length} offered`,
    };
  }
  return {
    kind: "outside",
    operation: index,
    reason: `the own job of operation ${op.plan.operationId}, which the shop never registered with the product`,
    counted: "an operation's own job it never registered",
  };
}
