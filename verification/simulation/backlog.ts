import type { AuditRow } from "./case-views";

/** Worker events after which the action is no longer claimed. */
const CLAIM_ENDS = new Set([
  "lease_rescued",
  "claim_released",
  "check_rescheduled",
  "recovery_unresolved",
  "recovery_succeeded",
  "generation_failure_observed",
]);

/** A canonicalised action time: a ready action's due time, or a claim's lease end, in quanta. */
export type ActionTime = { caseId: string; lease: boolean; quantum: number; due: boolean };

/**
 * What workers have to do now and when the next thing falls due, kept without asking the
 * database: every action time the product writes is canonicalised after its step (so its due
 * quantum is known here), and the audit log says when an action is claimed or handed back. The
 * worker phase ticks while something is due, and time jumps straight to the next due moment.
 */
export class Backlog {
  /** Cases with a ready action that is due now. */
  private readonly due = new Set<string>();
  /** Cases with a ready action due later, and when. */
  private readonly later = new Map<string, number>();
  /** Cases with a claimed action, and the quantum in which its lease runs out. */
  private readonly leases = new Map<string, number>();
  /** The earliest quantum in which a held webhook may fall due (they are released one at a time). */
  private webhooksFrom: number | null = 0;
  /** Quanta in which a send permit's deadline or silence falls due, with how many. */
  private readonly permits = new Map<number, number>();
  /** Permits fell due and no tick has run the product's sweep since. */
  private permitsDue = false;

  /** From the audit log of a step (applied before the step's canonicalised times). */
  onEvent(event: AuditRow): void {
    const caseId = event.caseId;
    if (!caseId) return;
    if (event.kind === "claimed") {
      this.due.delete(caseId);
      this.later.delete(caseId);
    }
    if (CLAIM_ENDS.has(event.kind)) this.leases.delete(caseId);
    if (event.kind === "claim_released") this.due.add(caseId);
  }

  onCanonicalised(times: ActionTime[], webhookQuanta: number[], permitQuanta: number[]): void {
    for (const quantum of permitQuanta) this.permits.set(quantum, (this.permits.get(quantum) ?? 0) + 1);
    for (const { caseId, lease, quantum, due } of times) {
      if (lease) {
        if (due) this.onLeaseExpired(caseId);
        else this.leases.set(caseId, quantum);
      } else if (due) {
        this.due.add(caseId);
        this.later.delete(caseId);
      } else {
        this.later.set(caseId, quantum);
        this.due.delete(caseId);
      }
    }
    for (const quantum of webhookQuanta) this.webhooksFrom = Math.min(this.webhooksFrom ?? quantum, quantum);
  }

  /** Time moved to `quantum`: the checks due by then (their rows must now be released as due). */
  releasable(quantum: number): string[] {
    const ready: string[] = [];
    for (const [caseId, at] of this.later) if (at <= quantum) ready.push(caseId);
    for (const caseId of ready) {
      this.later.delete(caseId);
      this.due.add(caseId);
    }
    return ready;
  }

  /**
   * Time moved to `quantum`: whether a permit may have fallen due by then (its rows must be
   * released; a permit reported in time has left nothing to release).
   */
  permitsFallDue(quantum: number): boolean {
    let any = false;
    for (const at of [...this.permits.keys()]) {
      if (at > quantum) continue;
      this.permits.delete(at);
      any = true;
    }
    return any;
  }

  onPermitsReleased(count: number): void {
    if (count > 0) this.permitsDue = true;
  }

  /** Every tick starts with the product's sweep of due permits. */
  onTick(): void {
    this.permitsDue = false;
  }

  /** The claim whose lease ran out first by `quantum` (ties: lower operation first), if any. */
  nextExpiredLease(quantum: number, order: (caseId: string) => number): string | null {
    let best: string | null = null;
    for (const [caseId, at] of this.leases) {
      if (at > quantum) continue;
      const current = best === null ? undefined : this.leases.get(best);
      if (best === null || current === undefined || at < current || (at === current && order(caseId) < order(best))) {
        best = caseId;
      }
    }
    return best;
  }

  onLeaseExpired(caseId: string): void {
    this.leases.delete(caseId);
    this.due.add(caseId);
  }

  mayHaveWebhooks(quantumNow: number): boolean {
    return this.webhooksFrom !== null && this.webhooksFrom <= quantumNow;
  }

  /** None was due; the next one falls due in `quantum` (null: none is waiting). */
  webhooksDueFrom(quantum: number | null): void {
    this.webhooksFrom = quantum;
  }

  /** The next quantum in which a check, a lease, a webhook or a permit falls due; null when nothing waits. */
  nextDue(): number | null {
    let next = this.webhooksFrom;
    for (const at of this.later.values()) next = next === null ? at : Math.min(next, at);
    for (const at of this.leases.values()) next = next === null ? at : Math.min(next, at);
    for (const at of this.permits.keys()) next = next === null ? at : Math.min(next, at);
    return next;
  }

  /** A tick found nothing although something looked due: trust the tick. */
  clear(): void {
    this.due.clear();
  }

  hasWork(): boolean {
    return this.due.size > 0 || this.permitsDue;
  }
}
