import type { Auditor } from "./auditor";
import type { CaseView } from "./case-views";
import { QUANTUM_MS } from "./logical-clock";
import { count, opOfCase, violate, type World } from "./world";

export type Outcome<T> = { ok: true; value: T } | { ok: false; code: string };

const MINUTE = 60_000;

/**
 * What runs after every step: canonicalise the time columns the step wrote, audit the cases it
 * touched, and schedule the next person to look at them.
 */
export class Steps {
  constructor(
    private readonly world: World,
    private readonly auditor: Auditor,
  ) {}

  async after(): Promise<CaseView[]> {
    const views = await this.auditor.afterStep();
    this.followUp(views);
    return views;
  }

  /** Whether a worker would find something to do now. */
  hasWork(): boolean {
    return this.auditor.backlog.hasWork() || this.auditor.stream.searchesDue() > 0;
  }

  get backlog() {
    return this.auditor.backlog;
  }

  get promise() {
    return this.auditor.promise;
  }

  /** The case as the last step left it. */
  view(caseId: string): CaseView | undefined {
    return this.auditor.latest.get(caseId);
  }

  /** A person's or the producer's call to a real service, traced, audited and followed up. */
  async call<T>(
    operation: number | null,
    who: string,
    label: string,
    run: () => Promise<T>,
    expected: readonly string[] = [],
  ): Promise<Outcome<T>> {
    let outcome: Outcome<T>;
    try {
      outcome = { ok: true, value: await run() };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      outcome = { ok: false, code: typeof code === "string" ? code : "exception" };
      if (!expected.includes(outcome.code)) {
        const message = error instanceof Error ? error.message : String(error);
        violate(this.world, "unexpectedRefusals", operation, `${who} ${label}: ${outcome.code}: ${message}`);
      } else count(this.world, `refused as it should be: ${label} (${outcome.code})`);
    }
    this.world.trace.record(operation, `${who} ${label} -> ${outcome.ok ? "ok" : outcome.code}`);
    await this.after();
    return outcome;
  }

  /** Someone will look at the case: a reviewer when it is parked, finance when money or a request waits. */
  private followUp(views: CaseView[]): void {
    for (const view of views) {
      const index = opOfCase(this.world, view.id);
      const op = index === null ? undefined : this.world.ops[index];
      if (index === null || !op) continue;
      if (view.state === "resolved" && op.plan.comesBack && op.episodes === 1 && !op.comebackPlanned) {
        op.comebackPlanned = true;
        this.world.schedule.add(this.later(op.plan.seams.int(10, 120) * MINUTE), index, "comeback");
      }
      if (view.state === "parked" && !op.reviewPending && !op.gaveUp) {
        op.reviewPending = true;
        this.world.schedule.add(this.later(op.plan.rng.int(1, 20) * MINUTE), index, "review");
      }
      const moneyWaits = view.holds.some(
        (hold) => hold.status === "held" && (view.state === "resolved" || hold.attemptRef !== view.attemptRef),
      );
      const requestWaits = view.pendingRequests.some((request) => !op.expiredRequests.has(request.id));
      if ((moneyWaits || requestWaits) && !op.financePending) {
        op.financePending = true;
        this.world.schedule.add(this.later(op.plan.rng.int(5, 60) * MINUTE), index, "finance");
      }
    }
  }

  later(ms: number): number {
    return this.world.clock.now() + Math.ceil(ms / QUANTUM_MS) * QUANTUM_MS;
  }
}
