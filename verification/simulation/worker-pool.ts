import type { WorkerContext } from "@/lib/worker/worker-context";
import type { Auditor } from "./auditor";
import { SimWorker, type TickReport } from "./sim-worker";
import type { Steps } from "./steps";
import { count, opOfCase, violate, type World, wrongAnswer } from "./world";

/** A stalled worker's claim that another worker took over; checked when the stalled tick ends. */
type Watch = { worker: SimWorker; operation: number; actionId: string; token: string; observations: number };

const MAX_TAKEOVER_TICKS = 40;
const MAX_TICKS_PER_PHASE = 100_000;

/**
 * Several worker processes, stepped one tick at a time in an order drawn from the seed. A crashed
 * worker is replaced by a fresh process with a new identity; its claim waits for its lease.
 */
export class WorkerPool {
  private readonly slots: SimWorker[] = [];
  private readonly watches: Watch[] = [];
  private restarts = 0;
  ticks = 0;

  constructor(
    private readonly world: World,
    private readonly steps: Steps,
    private readonly auditor: Auditor,
    private readonly contextFor: (worker: SimWorker, pool: WorkerPool) => WorkerContext,
    size = 3,
  ) {
    for (let i = 1; i <= size; i++) this.slots.push(this.spawn(`w${i}`));
  }

  /**
   * Ticks while there is work: due checks and searches first, then due webhooks one at a time,
   * then leases that ran out, one at a time (so a tick never sees two of either at once).
   */
  async runUntilQuiet(): Promise<void> {
    const { backlog } = this.steps;
    for (let i = 0; i < MAX_TICKS_PER_PHASE; i++) {
      if (!this.steps.hasWork()) {
        const webhook = backlog.mayHaveWebhooks(this.world.clock.quantum())
          ? await this.world.time.releaseNextWebhook()
          : null;
        if (webhook?.caseId) {
          this.world.trace.record(opOfCase(this.world, webhook.caseId), "a webhook is due");
        } else {
          if (webhook) backlog.webhooksDueFrom(webhook.nextQuantum);
          const lease = backlog.nextExpiredLease(this.world.clock.quantum(), (c) => opOfCase(this.world, c) ?? -1);
          if (!lease) return;
          await this.world.time.expireLease(lease);
          this.world.trace.record(opOfCase(this.world, lease), "a lease ran out");
          backlog.onLeaseExpired(lease);
        }
      }
      const { idle } = await this.tick(this.pick());
      if (idle) {
        this.steps.backlog.clear();
        this.auditor.stream.forgetSearches();
      }
    }
    throw new Error("the worker phase did not quieten");
  }

  /** After the run has drained, a tick by each worker must find nothing left to do. */
  async assertDrained(): Promise<void> {
    for (let i = 0; i < this.slots.length; i++) {
      const { idle } = await this.tick(this.pick());
      if (!idle) throw new Error(`a worker still found work after the run drained (step ${this.world.trace.steps})`);
    }
  }

  /**
   * `stalled` is stuck in a call for `operation` past its lease: the lease expires, and other
   * workers tick (rescuing and re-claiming the action) until one of them took it over.
   */
  readonly interleave = async (stalled: SimWorker, operation: number): Promise<void> => {
    const caseId = this.world.ops[operation]?.caseId;
    if (!caseId) return;
    const { rows } = await this.world.sql.query<{ id: string; token: string; observations: number }>(
      `SELECT a.id::text, a.fencing_token::text AS token,
              (SELECT count(*)::int FROM provider_observations o
               WHERE o.action_id = a.id AND o.fencing_token = a.fencing_token) AS observations
       FROM recovery_actions a WHERE a.case_id = $1::uuid AND a.status = 'claimed' AND a.lease_owner = $2`,
      [caseId, stalled.actor.workerId],
    );
    const action = rows[0];
    if (!action) return;
    await this.world.time.expireLease(caseId);
    this.steps.backlog.onLeaseExpired(caseId);
    this.watches.push({
      worker: stalled,
      operation,
      actionId: action.id,
      token: action.token,
      observations: action.observations,
    });
    this.world.trace.record(operation, `${stalled.label} stalls in a call past its lease`);
    for (let i = 0; i < MAX_TAKEOVER_TICKS; i++) {
      const other = this.pick(stalled);
      other.nested = true;
      const { idle, report } = await this.tick(other);
      other.nested = false;
      if (idle) break;
      if (report.kind === "done" && report.result.results.some((r) => r.actionId === action.id)) break;
    }
  };

  private async tick(worker: SimWorker): Promise<{ idle: boolean; report: TickReport }> {
    this.ticks += 1;
    const report = await worker.tick();
    this.steps.backlog.onTick();
    if (report.kind === "crashed") {
      this.world.trace.record(report.operation, `${worker.label} crashed ${report.where}`);
      this.replace(worker);
    } else if (report.kind === "failed") {
      const message = report.error instanceof Error ? report.error.message : String(report.error);
      violate(this.world, "unexpectedRefusals", null, `a tick of ${worker.label} failed: ${message}`);
    } else {
      for (const r of report.result.results) {
        const index = opOfCase(this.world, r.caseId);
        this.world.trace.record(index, `${worker.label} ran ${r.kind} under token ${r.fencingToken} -> ${r.outcome}`);
        if (r.outcome === "error") wrongAnswer(this.world, index, `${r.kind} ended in an error`);
      }
      if (report.result.rescued > 0) this.world.trace.record(null, `${worker.label} rescued ${report.result.rescued}`);
    }
    await this.steps.after();
    await this.checkWatches(worker, report);
    const idle =
      report.kind === "done" &&
      report.result.claimed === 0 &&
      report.result.rescued === 0 &&
      worker.listCalls === 0 &&
      worker.webhookSends === 0;
    if (idle) count(this.world, "worker ticks that found nothing to do");
    return { idle, report };
  }

  /** After a stalled worker's tick ends: it must not have recorded or published anything under its old token. */
  private async checkWatches(worker: SimWorker, report: TickReport): Promise<void> {
    const mine = this.watches.filter((watch) => watch.worker === worker);
    if (mine.length === 0) return;
    this.watches.splice(0, this.watches.length, ...this.watches.filter((watch) => watch.worker !== worker));
    for (const watch of mine) {
      const { rows } = await this.world.sql.query<{ observations: number; published: number; takenOver: boolean }>(
        `SELECT (SELECT count(*)::int FROM provider_observations WHERE action_id = $1::uuid AND fencing_token = $2) AS observations,
                (SELECT count(*)::int FROM assets
                 WHERE action_id = $1::uuid AND fencing_token = $2 AND published_at IS NOT NULL) AS published,
                (SELECT fencing_token > $2 FROM recovery_actions WHERE id = $1::uuid) AS "takenOver"`,
        [watch.actionId, watch.token],
      );
      const seen = rows[0];
      const outcome = report.kind === "done" ? report.result.results.find((r) => r.actionId === watch.actionId) : null;
      const believedItWon =
        seen?.takenOver && outcome && outcome.outcome !== "lost_claim" && outcome.outcome !== "error";
      if (!seen || seen.observations > watch.observations || seen.published > 0 || believedItWon) {
        violate(
          this.world,
          "concurrentExecutions",
          watch.operation,
          `${worker.label} kept working under token ${watch.token} after losing its lease (outcome ${outcome?.outcome ?? report.kind})`,
        );
      } else {
        this.world.trace.record(watch.operation, `${worker.label} resumed and found its claim gone`);
      }
    }
  }

  private pick(except?: SimWorker): SimWorker {
    return this.world.rng.pick(except ? this.slots.filter((w) => w !== except) : this.slots);
  }

  private replace(worker: SimWorker): void {
    const index = this.slots.indexOf(worker);
    this.restarts += 1;
    if (index >= 0) this.slots[index] = this.spawn(`${worker.label.split(".")[0]}.${this.restarts}`);
  }

  private spawn(label: string): SimWorker {
    const worker = new SimWorker(label);
    worker.ctx = this.contextFor(worker, this);
    return worker;
  }
}
