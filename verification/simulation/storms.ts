import type { FaultRuleInput } from "@/verification/simulator";
import { quanta } from "./logical-clock";
import { Rng, seedOf } from "./random";
import { resetFaultRules, type World } from "./world";

const MINUTE = 60_000;

export type Storm = { start: number; end: number; retryAfterSeconds: number };

/**
 * 429 storms: stretches of simulated time in which every status and result read is throttled
 * (Retry-After from 1 to 5 min). Job lists are spared: an inconclusive search is repeated on
 * the wall clock, which would make a replay depend on how fast the machine is.
 */
export function planStorms(seed: number, from: number, until: number): Storm[] {
  const rng = new Rng(seedOf("storms", seed));
  const storms: Storm[] = [];
  for (let window = from; window < until; window += 120 * MINUTE) {
    if (!rng.chance(0.5)) continue;
    const start = window + quanta(rng.int(0, 100) * MINUTE);
    storms.push({ start, end: start + quanta(rng.int(3, 12) * MINUTE), retryAfterSeconds: rng.pick([60, 120, 300]) });
  }
  return storms;
}

export function startStorm(world: World, storm: Storm): void {
  const fault = { type: "rate_limit" as const, retryAfterSeconds: storm.retryAfterSeconds };
  const rules: FaultRuleInput[] = [
    { match: { route: "status" }, fault },
    { match: { route: "result" }, fault },
  ];
  world.storms = rules;
  resetFaultRules(world);
  world.trace.record(null, `a 429 storm begins (Retry-After ${storm.retryAfterSeconds} s)`);
}

export function endStorm(world: World): void {
  world.storms = [];
  resetFaultRules(world);
  world.trace.record(null, "the 429 storm is over");
}
