import { describe, expect, it } from "vitest";
import type { CaseCommand, CaseSnapshot } from "./case-commands";
import { requestFingerprint } from "./fingerprint";
import { checkLeaseHolder, type Lease, nextLease } from "./lease";
import { decideRegistration, type RegistrationFacts } from "./registration";
import type { Stage } from "./stages";
import { canBeClaimed, decide } from "./transitions";

/**
 * A stand-in for one case row: decisions are applied with a compare-and-set on `version`, the
 * way the database applies them, so "exactly one of N" is shown without threads.
 */
class CaseRow {
  version = 0;
  lease: Lease | null = null;
  fencingToken = 0;
  constructor(public snapshot: CaseSnapshot) {}

  read(): { snapshot: CaseSnapshot; version: number } {
    return { snapshot: { ...this.snapshot }, version: this.version };
  }

  /** Throws the domain error when refused; returns false when another writer got there first. */
  apply(seen: { snapshot: CaseSnapshot; version: number }, command: CaseCommand): boolean {
    const decision = decide(seen.snapshot, command);
    if (!decision.ok) throw decision.error;
    if (this.version !== seen.version) return false;
    this.snapshot = decision.next;
    this.version += 1;
    return true;
  }

  run(command: CaseCommand): void {
    if (!this.apply(this.read(), command)) throw new Error("unexpected conflict");
  }

  claim(workerId: string, now: Date): Lease | null {
    const seen = this.read();
    if (!canBeClaimed(seen.snapshot) || !this.apply(seen, { type: "claim" })) return null;
    this.lease = nextLease(this.fencingToken, workerId, now);
    this.fencingToken = this.lease.fencingToken;
    return this.lease;
  }

  finish(lease: Pick<Lease, "holderId" | "fencingToken">, now: Date, resolved: boolean): void {
    const held = checkLeaseHolder(this.lease, lease, now);
    if (!held.ok) throw held.error;
    this.run(resolved ? { type: "finish_resolved" } : { type: "finish_unresolved", evidence: "storage write failed" });
    this.lease = null;
  }
}

const parkedAt = (stage: Stage, providerJobId: string | null = null) =>
  new CaseRow({ stage, state: "parked", providerJobId });
const now = new Date("2026-11-06T12:00:00Z");

describe("scenarios", () => {
  it("an uncertain submission requires reconciliation before any action", () => {
    const row = parkedAt("submission_uncertain");
    for (const action of ["submit_again", "resume_poll"]) {
      expect(() => row.run({ type: "approve", action, evidence: "timeout" })).toThrow(
        expect.objectContaining({ code: "reconciliation_required" }),
      );
    }
    expect(row.claim("worker", now)).toBeNull();
    row.run({ type: "reconcile_attach", providerJobId: "known-job", evidence: "matched record" });
    row.run({ type: "approve", action: "resume_poll", evidence: "job confirmed" });
    expect(row.claim("worker", now)).not.toBeNull();
    expect(row.snapshot).toEqual({ stage: "polling", state: "claimed", providerJobId: "known-job" });
  });

  it("registering the same facts twice is idempotent; different facts conflict", () => {
    const facts: RegistrationFacts = {
      operationId: "order-b",
      attemptId: "attempt-1",
      stage: "polling",
      providerJobId: "job-b",
      fingerprint: requestFingerprint({ model: "m", prompt: "p" }),
      provider: "replicate",
      model: "m",
      holdId: "hold-b",
      amountMicros: 500_000n,
      currency: "USD",
    };
    expect(decideRegistration(null, facts)).toEqual({ ok: true, value: { kind: "create" } });
    const existing = { registered: facts, state: "parked" as const };
    expect(decideRegistration(existing, { ...facts })).toEqual({ ok: true, value: { kind: "existing" } });
    const conflict = decideRegistration(existing, { ...facts, providerJobId: "different-job" });
    expect(!conflict.ok && conflict.error.code).toBe("conflicting_registration");
    const missingJob = decideRegistration(null, { ...facts, providerJobId: null });
    expect(!missingJob.ok && missingJob.error.code).toBe("provider_job_id_required");
  });

  it("review precedes action, approvals do not repeat, and exactly one of eight claims wins", () => {
    const row = parkedAt("delivery", "job-c");
    expect(() => row.run({ type: "approve", action: "retry_delivery", evidence: "" })).toThrow(
      expect.objectContaining({ code: "evidence_required" }),
    );
    row.run({ type: "approve", action: "retry_delivery", evidence: "asset found" });
    expect(() => row.run({ type: "approve", action: "retry_delivery", evidence: "duplicate" })).toThrow(
      expect.objectContaining({ code: "illegal_transition" }),
    );

    // All eight read the same ready row before any of them writes.
    const seen = Array.from({ length: 8 }, () => row.read());
    const wins = seen.map((snapshot) => row.apply(snapshot, { type: "claim" }));
    expect(wins.filter(Boolean)).toHaveLength(1);
    const lease = nextLease(0, `worker-${wins.indexOf(true)}`, now);
    row.lease = lease;
    row.fencingToken = lease.fencingToken;

    expect(() => row.finish({ holderId: "outsider", fencingToken: lease.fencingToken }, now, true)).toThrow(
      expect.objectContaining({ code: "not_claim_owner" }),
    );
    row.finish(lease, now, false);
    expect(row.snapshot.state).toBe("parked");
    expect(row.claim("next-worker", now)).toBeNull();

    row.run({ type: "approve", action: "retry_delivery", evidence: "storage repaired" });
    const second = row.claim("next-worker", now);
    expect(second?.fencingToken).toBe(2);
    if (!second) throw new Error("claim expected");
    // The first worker's token is now stale even if it reuses the new worker's name.
    expect(() => row.finish({ holderId: "next-worker", fencingToken: 1 }, now, true)).toThrow(
      expect.objectContaining({ code: "stale_fencing_token" }),
    );
    row.finish(second, now, true);
    expect(row.snapshot.state).toBe("resolved");
  });

  it("a new generation is never a recovery action", () => {
    const row = parkedAt("generation_failed");
    expect(() => row.run({ type: "approve", action: "submit_again", evidence: "failure seen" })).toThrow(
      expect.objectContaining({ code: "action_not_permitted_for_stage" }),
    );
    // The only way forward is a replacement request, which changes nothing by itself.
    const before = row.read();
    row.run({ type: "request_replacement", evidence: "provider reported a content filter false positive" });
    expect(row.snapshot).toEqual(before.snapshot);
  });

  it("a successful status check does not resolve by itself: the same claim carries on to delivery", () => {
    const row = parkedAt("polling", "job-e");
    row.run({ type: "approve", action: "resume_poll", evidence: "status checks timed out" });
    const lease = row.claim("worker", now);
    if (!lease) throw new Error("claim expected");
    expect(() => row.run({ type: "finish_resolved" })).toThrow(expect.objectContaining({ code: "illegal_transition" }));
    row.run({ type: "move_stage", stage: "delivery", evidence: "provider reports succeeded" });
    expect(row.snapshot).toEqual({ stage: "delivery", state: "claimed", providerJobId: "job-e" });
    // No second approval or claim: the worker stores the video and notifies under the same lease.
    expect(row.claim("other-worker", now)).toBeNull();
    row.finish(lease, now, true);
    expect(row.snapshot).toEqual({ stage: "delivery", state: "resolved", providerJobId: "job-e" });
  });

  it("a check that finds the job still running hands it back for a later check", () => {
    const row = parkedAt("polling", "job-f");
    row.run({ type: "approve", action: "resume_poll", evidence: "status checks timed out" });
    expect(row.claim("worker", now)).not.toBeNull();
    row.run({ type: "reschedule", evidence: "provider: still running" });
    expect(row.snapshot).toEqual({ stage: "polling", state: "ready", providerJobId: "job-f" });
    expect(row.claim("worker", now)).not.toBeNull();
  });

  it("a generation failure seen by a status check parks the case for review", () => {
    const row = parkedAt("polling", "job-g");
    row.run({ type: "approve", action: "resume_poll", evidence: "status checks timed out" });
    expect(row.claim("worker", now)).not.toBeNull();
    row.run({ type: "move_stage", stage: "generation_failed", evidence: "provider: failed" });
    expect(row.snapshot).toEqual({ stage: "generation_failed", state: "parked", providerJobId: "job-g" });
    expect(row.claim("worker", now)).toBeNull();
  });
});
