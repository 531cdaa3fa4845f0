import type pg from "pg";
import type { PrismaClient } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import type { UserActor } from "@/lib/services/access/actor";
import type { FaultRuleInput, RunningSimulator, SimJob } from "@/verification/simulator";
import { providerJobIdOf } from "@/verification/simulator/providers";
import type { DbTime } from "./db-time";
import type { InvoiceBook } from "./invoices";
import type { LogicalClock } from "./logical-clock";
import type { JobBehaviour, OpPlan, Trouble } from "./op-plan";
import type { Rng } from "./random";
import type { Schedule } from "./schedule";
import type { Trace } from "./trace";

export type AttemptRecord = {
  attemptId: string;
  /**
   * The provider job this attempt created, if any (ground truth, whether or not anyone knows it), by
   * the simulator's own key; what the shop reports and the product records is `reportedJobId` of it.
   */
  jobId: string | null;
  replacement: boolean;
  trouble: Trouble;
  job: JobBehaviour | null;
  submittedAt: number;
  holdId: string;
  /** The producer kept the job ID (it will report it when parking). */
  producerKnowsJob: boolean;
  parkPending: boolean;
  /** The send permit's token, when the shop sent this attempt under one. */
  permitToken: number | null;
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
  /** Episodes the producer parked so far (a resolved operation may come back as a new one). */
  episodes: number;
  comebackPlanned: boolean;
  comebackTries: number;
  /** New generations the producer itself chose to make for a new episode (not accidents). */
  ownResubmissions: number;
  /** Storage refusals so far, and whether someone fixed the cause after it looped. */
  storageFailures: number;
  storageFixed: boolean;
  /** Create calls the shop made under send permits (each must have had a permit of its own). */
  permitSends: number;
  /** The shop's process died between a send and its report. */
  crashedAfterSend: boolean;
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
  overwrittenFiles: "published files whose bytes differ from their recorded SHA-256",
  jobsOnTwoHolds: "provider jobs settled on more than one hold",
  replacementsWhileVisible: "replacements authorised while the original job was visible at the provider",
  unsearchableReplacements: "replacements authorised on 'no job exists' for a provider that cannot be searched",
  openWithoutNextStep: "open cases without a permitted decision or a scheduled action",
  resolvedHeldUnflagged: "resolved cases with a held hold that nobody flagged for finance",
  ledgerUnbalanced: "ledgers whose totals differ from the holds by a micro-unit or more",
  poisonActions: "actions claimed again and again without ever finishing",
  blindResends: "create calls beyond the send permits the operation was issued",
  lostSends: "sends under a permit that ended neither parked, attached nor settled by the provider's word",
  backwardTransitions: "permits or cases moved backwards (a terminal outcome changed, or a webhook undoing one)",
  bytesToAnotherOperation: "bytes delivered to an operation that did not create the job",
  holdsSettledByAnotherJob: "holds settled by another operation's job",
  completedWithoutCharge: "provider-completed jobs with no charge entry (a released hold and no charge after release)",
  paidDuplicatesUnflagged:
    "paid duplicates not flagged (a job paid outside the permits, or two paid jobs with the same video, that the product did not flag)",
} as const;
export type Figure = keyof typeof FIGURES;

export type Violation = { figure: Figure; operation: number | null; detail: string; step: number };

export type ShopProducer = {
  principal: Principal & { kind: "api_key" };
  /** The shop's producer API key (the SDK sends it). */
  apiKey: string;
  endpointUrl: string;
  webhookSecret: string;
};

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
  /** Each created job, under both its simulator key and its reported ID: its operation and simulator key. */
  byJob: Map<string, { index: number; jobId: string }>;
  /** When the provider last showed the product that a job's outputs are gone (logical time), by reported ID. */
  lossShownAt: Map<string, number>;
  byCase: Map<string, number>;
  byOperationId: Map<string, number>;
  /** Several shops on one provider account, each with its own API key and webhook endpoint. */
  producers: ShopProducer[];
  people: People;
  /** Where the product's local storage keeps published files (the auditor reads them back). */
  assetDir: string;
  /** Storm rules currently installed in the simulator (re-installed after per-call rules are purged). */
  storms: FaultRuleInput[];
  producerCreates: number;
  counters: Map<string, number>;
  figures: Record<Figure, number>;
  violations: Violation[];
  /** Charges, identical outputs and jobs outside the permits, for the invoice figures (./invoices.ts). */
  invoices: InvoiceBook;
};

/** Records a job the simulator created for operation `index`, findable by either of its IDs. */
export function recordJob(world: World, index: number, job: SimJob): void {
  const entry = { index, jobId: job.id };
  world.byJob.set(job.id, entry);
  world.byJob.set(providerJobIdOf(job), entry);
}

/** The ID the shop reports and the product records for the simulator's job `jobId` (Veo: the operation's name). */
export function reportedJobId(world: World, jobId: string): string {
  const job = world.simulator.state.jobs.get(jobId);
  return job ? providerJobIdOf(job) : jobId;
}

/** The simulator's job that an ID the product holds names, or the simulator key, whichever is given. */
export function simJobOf(world: World, id: string): SimJob | undefined {
  const known = world.byJob.get(id);
  return world.simulator.state.jobs.get(known?.jobId ?? id);
}

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
export function learnCase(world: World, caseId: string, producer: string, operationId: string): void {
  if (world.byCase.has(caseId)) return;
  const index = world.byOperationId.get(opKey(producer, operationId));
  const op = index === undefined ? undefined : world.ops[index];
  if (index === undefined || !op) return;
  world.byCase.set(caseId, index);
  op.caseId = caseId;
}

/** Operation IDs are the producer's own: two shops may use the same text for different operations. */
export const opKey = (producer: string, operationId: string) => `${producer}\u0000${operationId}`;

/** The operation a producer's operation ID names; anything else is not ours. */
export function opOfOperationId(
  world: World,
  producer: string | null | undefined,
  operationId: string | null | undefined,
): number | null {
  return producer && operationId ? (world.byOperationId.get(opKey(producer, operationId)) ?? null) : null;
}

/** Every operation, of any producer, that uses this operation ID text (lowest index first). */
export function opsOfOperationText(world: World, operationId: string): number[] {
  return world.producers
    .map((p) => opOfOperationId(world, p.principal.name, operationId))
    .filter((i): i is number => i !== null)
    .sort((a, b) => a - b);
}

export function producerOf(world: World, op: OpRecord): ShopProducer {
  const producer = world.producers[op.plan.producer];
  if (!producer) throw new Error(`no producer ${op.plan.producer}`);
  return producer;
}

export function currentAttempt(op: OpRecord): AttemptRecord | undefined {
  return op.attempts.at(-1);
}

/** Removes per-call simulator rules, keeping the storm that may be raging. */
export function resetFaultRules(world: World): void {
  world.simulator.state.faults.clear();
  for (const rule of world.storms) world.simulator.state.faults.add(rule);
}

/** A request the product answered wrongly, counted by what it was (`detail` names no IDs). */
export function wrongAnswer(world: World, operation: number | null, detail: string): void {
  count(world, `wrong answers: ${detail}`);
  violate(world, "unexpectedRefusals", operation, detail);
}
