import type { SimJob } from "@/verification/simulator";
import { Rng, seedOf } from "./random";
import { count, type OpRecord, type World } from "./world";

/** Steps a charge differs from the hold by: whole Runway credits ($0.01), so every provider can bill them. */
const CHARGE_DIFFERENCES = [-100_000, -50_000, -10_000, 10_000, 50_000, 100_000] as const;

/**
 * What the provider bills the job a shop made for operation `index` (decision 076): what the shop
 * reserved, since it priced the send from the same list, except now and then (a changed price, a
 * longer video than asked, a discount), so the usage import has corrections to make. Drawn from a
 * stream of its own, so that every other draw of the run stays as it was.
 */
export function chargeJob(world: World, index: number, op: OpRecord, job: SimJob): void {
  const rng = new Rng(seedOf("charge", world.seed, index, op.attempts.length, job.createdAt));
  const differs = rng.chance(0.1);
  const difference = differs ? rng.pick(CHARGE_DIFFERENCES) : 0;
  job.costMicros = Math.max(10_000, op.plan.amountMicros + difference);
  if (differs) count(world, `provider charges that differ from the hold (${difference > 0 ? "more" : "less"})`);
}

/**
 * Now and then the provider hands a job the video an earlier job of another operation delivered
 * (decision 072: a cached output, or one result handed to two requests): both were paid, and the
 * product must flag the pair once it has published both.
 */
export function shareOutputs(world: World, index: number, job: SimJob): void {
  if (job.outcome !== "succeeded") return;
  const earlier = world.invoices.lastSucceeded.get(job.provider);
  world.invoices.lastSucceeded.set(job.provider, { index, jobId: job.id });
  const rng = new Rng(seedOf("same-output", world.seed, index, job.createdAt));
  const source = earlier && earlier.index !== index ? world.simulator.state.jobs.get(earlier.jobId) : undefined;
  if (!source || !rng.chance(0.04)) return;
  job.outputSeed = source.outputSeed;
  world.invoices.identicalOutputs.push([source.id, job.id]);
  count(world, "jobs the provider handed an earlier job's video (identical outputs)");
}
