import type { JobSpec } from "../simulator";

/**
 * What each seeded action meets at the provider, and how it must end. Every action ends either
 * executed to completion (delivered, case resolved) or safely re-parked (action unresolved, case
 * parked), whatever crashes happen on the way; nothing may stay ready or claimed.
 */
export type Scenario = {
  name: string;
  weight: number;
  stage: "polling" | "delivery";
  /**
   * The job as it exists at the provider; null: the provider has never heard of it. `runningMs` is
   * how long a still-running job may run, [min, max] (a small CI run shortens it).
   */
  job: ((random: () => number, runningMs: RunningRange) => Omit<JobSpec, "provider">) | null;
  expect: { status: "succeeded" | "unresolved"; caseState: "resolved" | "parked"; stage: string };
};

export type RunningRange = readonly [min: number, max: number];
/** A still-running job runs 1–3 minutes unless the run asks otherwise (--running-seconds). */
export const STILL_RUNNING_MS: RunningRange = [60_000, 180_000];

const DONE = { queuedMs: 0, runningMs: 0, outputBytes: 2048 };

export const SCENARIOS: Scenario[] = [
  {
    name: "poll_then_deliver",
    weight: 45,
    stage: "polling",
    job: () => ({ ...DONE, outcome: "succeeded" }),
    expect: { status: "succeeded", caseState: "resolved", stage: "delivery" },
  },
  {
    name: "deliver",
    weight: 25,
    stage: "delivery",
    job: () => ({ ...DONE, outcome: "succeeded" }),
    expect: { status: "succeeded", caseState: "resolved", stage: "delivery" },
  },
  {
    // Still running when first checked: rescheduled (same action, new claims) until it completes.
    name: "poll_still_running",
    weight: 5,
    stage: "polling",
    job: (random, [min, max]) => ({
      ...DONE,
      runningMs: Math.round(min + random() * (max - min)),
      outcome: "succeeded",
    }),
    expect: { status: "succeeded", caseState: "resolved", stage: "delivery" },
  },
  {
    name: "poll_failed",
    weight: 10,
    stage: "polling",
    job: () => ({ ...DONE, outcome: "failed", errorOnStatus: true }),
    expect: { status: "unresolved", caseState: "parked", stage: "generation_failed" },
  },
  {
    name: "output_expired",
    weight: 8,
    stage: "delivery",
    job: () => ({ ...DONE, outcome: "succeeded", outputTtlMs: 0, resultTtlMs: 0 }),
    expect: { status: "unresolved", caseState: "parked", stage: "delivery" },
  },
  {
    name: "unknown_job",
    weight: 7,
    stage: "polling",
    job: null,
    expect: { status: "unresolved", caseState: "parked", stage: "polling" },
  },
];

export function pickScenario(random: () => number): Scenario {
  const total = SCENARIOS.reduce((sum, s) => sum + s.weight, 0);
  let roll = random() * total;
  for (const scenario of SCENARIOS) {
    roll -= scenario.weight;
    if (roll < 0) return scenario;
  }
  return SCENARIOS[0] as Scenario;
}
