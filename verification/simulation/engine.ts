import type { PrismaClient } from "@/lib/db/client";
import { Auditor } from "./auditor";
import { createEnvironment } from "./environment";
import { Finance } from "./finance";
import { checkInvoices } from "./invoice-figures";
import { type InvoiceFigure, importedLines, reconcileInvoices } from "./invoices";
import { JobSquatter } from "./job-squatter";
import { PermitProducer } from "./permit-producer";
import { Producer } from "./producer";
import { ProviderCreates } from "./producer-submit";
import { ProviderWebhookDesk } from "./provider-webhooks";
import { applyWaitingLines } from "./reconcile-charges";
import { Reviewer } from "./reviewer";
import type { ScheduledEvent } from "./schedule";
import { Steps } from "./steps";
import { endStorm, planStorms, startStorm } from "./storms";
import { WorkerPool } from "./worker-pool";
import { count, FIGURES, type Figure, type Violation, violate } from "./world";

const MINUTE = 60_000;
/** A new job every 20 simulated seconds. */
const ARRIVAL_GAP_MS = 20_000;
/** Beyond the last arrival, this much simulated time is allowed for everything to settle. */
const DRAIN_LIMIT_MS = 14 * 24 * 60 * MINUTE;
/** Invoices at the month's end: the month's, then the next for what its reconciliation set going. */
const MAX_INVOICE_ROUNDS = 3;

/** `db` is the product's client on an empty, migrated database; `url` is the same database. */
export type SimulationOptions = {
  db: PrismaClient;
  url: string;
  seed: number;
  jobs: number;
  workers?: number;
  /** Receives every line of the logical trace as it is recorded. */
  onTrace?: (line: string) => void;
  /** Called after every 500th job arrived, with how many have. */
  onProgress?: (arrived: number, result: Pick<SimulationResult, "steps" | "ticks" | "wallMs">) => void;
};

export type SimulationResult = {
  seed: number;
  jobs: number;
  digest: string;
  figures: Record<Figure, number>;
  /** Figures about the imported invoices after the month's reconciliation (./invoices.ts); they must be 0 too. */
  invoiceFigures: Record<InvoiceFigure, number>;
  /** What those figures counted, one line each (sorted). */
  invoiceDetails: string[];
  counters: [string, number][];
  violations: Violation[];
  steps: number;
  ticks: number;
  simulatedMs: number;
  wallMs: number;
  /** The last logical steps of one operation (for a failure report). */
  traceOf(operation: number, count?: number): string[];
  lastSteps(count?: number): string[];
};

export const passed = (result: Pick<SimulationResult, "figures" | "invoiceFigures">) =>
  [...Object.values(result.figures), ...Object.values(result.invoiceFigures)].every((figure) => figure === 0);

/**
 * Runs one seeded simulation to the end: jobs arrive, the producer submits and parks them, people
 * review and decide, workers tick in a seeded order, and time moves only when nothing is left to
 * do at the current instant. The auditor checks after every step and once more at the end.
 */
export async function runSimulation(options: SimulationOptions): Promise<SimulationResult> {
  process.env.WORKER_LOG = "0";
  const started = Date.now();
  const env = await createEnvironment(options.db, options.url, options.seed, options.jobs, options.onTrace);
  const { world } = env;
  try {
    const auditor = new Auditor(world);
    const steps = new Steps(world, auditor);
    const creates = new ProviderCreates(world);
    const producer = new Producer(world, steps, creates);
    const webhooks = new ProviderWebhookDesk(world, steps);
    const permitProducer = new PermitProducer(world, steps, creates, webhooks);
    const squatter = new JobSquatter(world, steps);
    const reviewer = new Reviewer(world, steps);
    const finance = new Finance(world, steps);
    const pool = new WorkerPool(
      world,
      steps,
      auditor,
      (worker, p) => env.contextFor(worker, p.interleave),
      options.workers,
    );
    const start = world.clock.now();
    for (let index = 0; index < options.jobs; index++)
      world.schedule.add(start + index * ARRIVAL_GAP_MS, index, "arrive");
    const lastArrival = start + options.jobs * ARRIVAL_GAP_MS;
    const storms = planStorms(options.seed, start, lastArrival);
    storms.forEach((storm, i) => {
      world.schedule.add(storm.start, -1 - i, "storm_start");
      world.schedule.add(storm.end, -1 - i, "storm_end");
    });

    const handle = async (event: ScheduledEvent) => {
      if (event.kind === "arrive") {
        if ((event.operation + 1) % 500 === 0) {
          options.onProgress?.(event.operation + 1, {
            steps: world.trace.steps,
            ticks: pool.ticks,
            wallMs: Date.now() - started,
          });
        }
        await squatter.maybeSquat(event.operation);
        return world.ops[event.operation]?.plan.permit
          ? permitProducer.arrive(event.operation)
          : producer.arrive(event.operation);
      }
      if (event.kind === "permit_restart") return permitProducer.restart(event.operation);
      if (event.kind === "permit_resend") return permitProducer.resend(event.operation);
      if (event.kind === "permit_poll") return permitProducer.poll(event.operation);
      if (event.kind === "provider_webhook") {
        const op = world.ops[event.operation];
        return op ? webhooks.deliver(event.operation, op) : undefined;
      }
      if (event.kind === "park") return producer.park(event.operation);
      if (event.kind === "comeback") return producer.comeBack(event.operation);
      if (event.kind === "review") return reviewer.visit(event.operation);
      if (event.kind === "finance") return finance.visit(event.operation);
      if (event.kind === "replacements") return producer.submitReplacements();
      const storm = storms[-1 - event.operation];
      if (event.kind === "storm_start" && storm) startStorm(world, storm);
      if (event.kind === "storm_end") endStorm(world);
    };

    /** Workers, people and time run until nothing is left to do (or two weeks after the last arrival). */
    const drain = async () => {
      for (let stalls = 0; ; ) {
        await pool.runUntilQuiet();
        const due = steps.backlog.nextDue();
        const candidates = [world.schedule.peekTime(), due === null ? null : world.clock.fromQuantum(due)];
        const times = candidates.filter((t): t is number => t !== null);
        if (times.length === 0) break;
        const next = Math.max(Math.min(...times), world.clock.now());
        if (next > world.clock.now()) {
          stalls = 0;
          world.clock.advanceTo(next);
          const released = steps.backlog.releasable(world.clock.quantum());
          if (released.length > 0) await world.time.release(released);
          if (steps.backlog.permitsFallDue(world.clock.quantum()))
            steps.backlog.onPermitsReleased(await world.time.releasePermits());
        } else if (++stalls > 100) {
          throw new Error(`the simulation stopped advancing at step ${world.trace.steps}`);
        }
        for (
          let event = world.schedule.takeDue(world.clock.now());
          event;
          event = world.schedule.takeDue(world.clock.now())
        ) {
          await handle(event);
        }
        if (world.clock.now() > lastArrival + DRAIN_LIMIT_MS) {
          violate(world, "lostOrStuck", null, "work was still pending two weeks after the last job arrived");
          break;
        }
      }
    };

    await drain();
    await pool.assertDrained();
    // The month closes: each provider's invoice is imported, finance reconciles the charges no
    // operation explains, and what that set going (attached cases, cases whose job moved to another
    // send, the replacements they bought) runs to its end. The sends it made are billed on the next
    // invoice, imported and reconciled the same way, until one adds nothing; then the waiting usage
    // lines are applied, the auditor's last pass, and the invoice figures.
    for (let round = 0; round < MAX_INVOICE_ROUNDS; round++) {
      const added = await reconcileInvoices(world, steps);
      await drain();
      await pool.assertDrained();
      if (round > 0 && added === 0) break;
      if (round > 0) count(world, "invoice rounds after the month's, for what its reconciliation set going");
    }
    await applyWaitingLines(world, steps);
    await auditor.final();
    await checkInvoices(world, await importedLines(world));
    const simulatedMs = world.clock.now() - start;
    return {
      seed: options.seed,
      jobs: options.jobs,
      digest: world.trace.digest(),
      figures: { ...world.figures },
      invoiceFigures: { ...world.invoices.figures },
      invoiceDetails: [...world.invoices.details].sort(),
      counters: [...world.counters.entries()].sort(([a], [b]) => a.localeCompare(b)),
      violations: world.violations,
      steps: world.trace.steps,
      ticks: pool.ticks,
      simulatedMs,
      wallMs: Date.now() - started,
      traceOf: (operation, count) => world.trace.lastFor(operation, count),
      lastSteps: (count) => world.trace.lastGlobal(count),
    };
  } finally {
    await env.stop();
  }
}

export { FIGURES };
