import type pg from "pg";
import type { PrismaClient } from "../../lib/db/client";
import type { Principal } from "../../lib/domain/principal";
import type { FaultRuleInput, RunningSimulator } from "../../lib/providers/simulator";
import type { UserActor } from "../../lib/services/actor";
import type { DbTime } from "./db-time";
import type { LogicalClock } from "./logical-clock";
import type { JobBehaviour, OpPlan, Trouble } from "./op-plan";
import type { Rng } from "./random";
import type { Schedule } from "./schedule";
import type { Trace } from "./trace";

export type AttemptRecord = {
  attemptId: string;
  /** The provider job this attempt created, if any (ground truth, whether or not anyone knows it). */
  jobId: string | null;
  replacement: boolean;
  trouble: Trouble;
  job: JobBehaviour | null;
  submittedAt: number;
  holdId: string;
  /** The producer kept the job ID (it will report it when parking). */
  producerKnowsJob: boolean;
  parkPending: boolean;
};

export type OpRecord = {
  plan: OpPlan;
  caseId: string | null;
  attempts: AttemptRecord[];
  replacementsRequested: number;
  /** Approvals and reconciliations so far; past a bound the reviewer escalates and leaves it parked. */
  reviews: number;
  gaveUp: boolean;
  reviewPending: boolean;
  financePending: boolean;
  budget: { crashes: number; interleaves: number; providerFaults: number };
  /** Replacement requests that nobody decided in time (still "pending" in the database). */
  expiredRequests: Set<string>;
  webhooks: Set<string>;
};

/** The figures that must all be 0. */
export const FIGURES = {
  recoveryCreates: "provider create calls made by the recovery path",
  paidBeyondAuthorised: "operations with more paid generations than authorised attempts",
  concurrentExecutions: "actions executed concurrently by two workers",
  holdImbalances: "holds where held + settled + released != reserved",
  heldTotalMismatches: "cases whose held total differs from their open holds",
  releasesWithoutFinance: "holds released without a finance decision",
  changesWithoutOneAudit: "state changes without exactly one audit event",
  lostOrStuck: "cases lost or stuck without a next step and evidence",
  unexpectedRefusals: "requests the product refused, failed or answered wrongly",
} as const;
export type Figure = keyof typeof FIGURES;

export type Violation = { figure: Figure; operation: number | null; detail: string; step: number };

export type People = {
  reviewers: UserActor[];
  finance: UserActor[];
  /** Holds both roles: may ask for a replacement but never authorise their own request. */
  dual: UserActor;
};

export type World = {
  seed: number;
  /** The product's client (services and worker use it). */
  db: PrismaClient;
  /** The simulation's own connection: time control, audit reads, views (raw SQL, fewer round trips). */
  sql: pg.Pool;
  clock: LogicalClock;
  time: DbTime;
  simulator: RunningSimulator;
  trace: Trace;
  schedule: Schedule;
  rng: Rng;
  ops: OpRecord[];
  byJob: Map<string, number>;
  byCase: Map<string, number>;
  byOperationId: Map<string, number>;
  producer: Principal & { kind: "api_key" };
  people: People;
  webhookSecret: string;
  /** Storm rules currently installed in the simulator (re-installed after per-call rules are purged). */
  storms: FaultRuleInput[];
  producerCreates: number;
  counters: Map<string, number>;
  figures: Record<Figure, number>;
  violations: Violation[];
};

export function count(world: World, key: string, by = 1): void {
  world.counters.set(key, (world.counters.get(key) ?? 0) + by);
}

export function violate(world: World, figure: Figure, operation: number | null, detail: string): void {
  world.figures[figure] += 1;
  world.violations.push({ figure, operation, detail, step: world.trace.steps });
  world.trace.record(operation, `VIOLATION ${figure}: ${detail}`);
}

export function opOfCase(world: World, caseId: string | null | undefined): number | null {
  return caseId ? (world.byCase.get(caseId) ?? null) : null;
}

/** Links a case the product created to the operation it belongs to (the first time it is seen). */
export function learnCase(world: World, caseId: string, operationId: string): void {
  if (world.byCase.has(caseId)) return;
  const index = world.byOperationId.get(operationId);
  const op = index === undefined ? undefined : world.ops[index];
  if (index === undefined || !op) return;
  world.byCase.set(caseId, index);
  op.caseId = caseId;
}

/** Operation IDs end with the index; anything else is not ours. */
export function opOfOperationId(world: World, operationId: string | null | undefined): number | null {
  return operationId ? (world.byOperationId.get(operationId) ?? null) : null;
}

export function currentAttempt(op: OpRecord): AttemptRecord | undefined {
  return op.attempts.at(-1);
}

/** Removes per-call simulator rules, keeping the storm that may be raging. */
export function resetFaultRules(world: World): void {
  world.simulator.state.faults.clear();
  for (const rule of world.storms) world.simulator.state.faults.add(rule);
}
