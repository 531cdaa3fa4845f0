import { type ProviderAdapters, simulatorAdapters } from "@/lib/providers";
import type { UserActor } from "@/lib/services/access/actor";
import { resolveHold } from "@/lib/services/hold/resolve-hold";
import { authorizeReplacement, declineReplacement } from "@/lib/services/replacement/decide-replacement";
import { phaseOf } from "@/verification/simulator/jobs";
import { CaseDesk } from "./case-desk";
import type { CaseView } from "./case-views";
import { type OpRecord, producerOf } from "./world";

const MINUTE = 60_000;

/**
 * Finance: decides replacement requests (a different person from the requester; sometimes too
 * late, so the request expires) and resolves holds once the charge is known from the provider's
 * side: settled when the job produced a video, released when there was no job or it failed.
 * Money on a case that is still uncertain stays held.
 */
export class Finance extends CaseDesk {
  private adapters: ProviderAdapters | undefined;

  /** Finance's own look at the provider before paying again (rule 14), without the worker's faults. */
  private get providers(): ProviderAdapters {
    this.adapters ??= simulatorAdapters(this.world.simulator.url, {
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2, perAttemptTimeoutMs: 5_000, maxRetryAfterMs: 0 },
      random: () => 0.5,
    });
    return this.adapters;
  }

  async visit(index: number): Promise<void> {
    await this.releaseRefusedSends(index);
    await this.releaseEarly(index);
    const visit = this.caseToVisit(index, "finance");
    if (!visit) return;
    const { op, view } = visit;
    for (const request of view.pendingRequests) {
      if (!op.expiredRequests.has(request.id)) await this.decideRequest(index, op, request);
    }
    const current = op.caseId ? this.steps.view(op.caseId) : undefined;
    if (current && (await this.decideHolds(index, op, current))) this.visitAgain(op, index, "finance", 30 * MINUTE);
  }

  private async decideRequest(index: number, op: OpRecord, request: CaseView["pendingRequests"][number]) {
    const { db, people } = this.world;
    const rng = op.plan.rng;
    if (request.requestedBy === people.dual.userId && rng.chance(0.6)) {
      await this.steps.call(
        index,
        "dual",
        "tries to authorise their own replacement request",
        () =>
          authorizeReplacement(
            db,
            people.dual,
            request.id,
            { evidence: "looks fine to me" },
            { adapters: this.providers },
          ),
        ["four_eyes_violation"],
      );
    }
    const { who, as } = this.pickPerson(op, people.finance, "finance");
    const choice = rng.weighted([
      ["authorize", 75],
      ["decline", 10],
      ["expire", 15],
    ] as const);
    if (choice === "expire") {
      await this.world.time.expireReplacementRequest(request.id);
      op.expiredRequests.add(request.id);
      this.world.trace.record(index, "nobody in finance decided the request before it expired");
      await this.steps.call(
        index,
        as,
        "authorises the replacement too late",
        () => authorizeReplacement(db, who, request.id, { evidence: "sorry, was away" }, { adapters: this.providers }),
        ["replacement_expired"],
      );
      this.visitAgain(op, index, "review", rng.int(5, 30) * MINUTE);
      return;
    }
    if (choice === "decline") {
      await this.steps.call(index, as, "declines the replacement", () =>
        declineReplacement(db, who, request.id, { evidence: "over budget this month" }),
      );
      return;
    }
    // The original job may show up in the lagging list at the last moment: then nothing is bought.
    // Rule 14 guards replacements of a job thought missing: a failure with no job is one that "no job
    // exists" decided. Lost outputs or a failure the provider reported replace a job known to exist.
    const before = op.caseId ? this.steps.view(op.caseId) : undefined;
    const restsOnNoJob = before?.stage === "generation_failed" && before.providerJobId === null;
    const replaced = restsOnNoJob ? before.attemptId : undefined;
    const authorised = await this.steps.call(
      index,
      as,
      "authorises the replacement",
      () => authorizeReplacement(db, who, request.id, { evidence: "budget approved" }, { adapters: this.providers }),
      ["original_job_found", "provider_check_failed"],
    );
    // A provider that could not be asked leaves the request pending: finance tries again later.
    if (!authorised.ok && authorised.code === "provider_check_failed")
      this.visitAgain(op, index, "finance", 30 * MINUTE);
    if (authorised.ok && replaced) this.steps.promise.atAuthorisation(index, replaced);
    if (authorised.ok) this.world.schedule.add(this.steps.later(rng.int(5, 30) * MINUTE), index, "replacements");
  }

  /** A send the provider refused bought nothing: its hold, on no case, waits for finance to release it (rule 6). */
  private async releaseRefusedSends(index: number): Promise<void> {
    const op = this.world.ops[index];
    if (!op?.plan.permit) return;
    const { rows } = await this.world.sql.query<{ id: string }>(
      `SELECT h.id::text FROM send_permits p
       JOIN operations o ON o.id = p.operation_ref JOIN holds h ON h.id = p.hold_ref
       WHERE o.producer = $1 AND o.operation_id = $2 AND p.status = 'rejected' AND h.status = 'held'
       ORDER BY p.token`,
      [producerOf(this.world, op).principal.name, op.plan.operationId],
    );
    for (const row of rows) {
      const { who, as } = this.pickPerson(op, this.world.people.finance, "finance");
      await this.steps.call(index, as, "releases the hold of a send the provider refused", () =>
        resolveHold(this.world.db, who, row.id, {
          kind: "release",
          note: "the provider refused the request: nothing was bought",
          evidence: "the provider's 422 answer, reported with the permit",
        }),
      );
    }
  }

  /**
   * Finance acting before the outcome is known (DESIGN rule 18): now and then it tries to release
   * the hold of a send still in flight or uncertain, is refused, and sometimes writes it off. If
   * the job then completes, the product must book a flagged charge after release.
   */
  private async releaseEarly(index: number): Promise<void> {
    const op = this.world.ops[index];
    if (!op?.plan.permit || !op.plan.rng.chance(0.3)) return;
    const { rows } = await this.world.sql.query<{ id: string }>(
      `SELECT h.id::text FROM send_permits p
       JOIN operations o ON o.id = p.operation_ref JOIN holds h ON h.id = p.hold_ref
       LEFT JOIN cases c ON c.id = h.case_id
       WHERE o.producer = $1 AND o.operation_id = $2 AND h.status = 'held'
         AND (p.status IN ('live', 'accepted') OR c.stage IN ('submission_uncertain', 'polling'))
       ORDER BY p.token`,
      [producerOf(this.world, op).principal.name, op.plan.operationId],
    );
    for (const row of rows) {
      const { who, as } = this.pickPerson(op, this.world.people.finance, "finance");
      const note = "released early: the usage report shows nothing yet";
      const released = await this.steps.call(
        index,
        as,
        "releases a hold before its send's outcome is known",
        () => resolveHold(this.world.db, who, row.id, { kind: "release", note, evidence: "usage report" }),
        ["send_outcome_unknown", "send_completed"],
      );
      // A completed job is settled by its own path; only an unknown outcome may be written off.
      if (!released.ok && released.code === "send_outcome_unknown" && op.plan.rng.chance(0.5))
        await this.writeOff(index, as, who, row.id, note);
    }
  }

  private async writeOff(index: number, as: string, who: UserActor, holdId: string, note: string): Promise<void> {
    await this.steps.call(index, as, "writes off a hold whose send's outcome is unknown", () =>
      resolveHold(this.world.db, who, holdId, { kind: "write_off", note, evidence: "provider usage report" }),
    );
  }

  /** Resolves every hold whose charge is known; returns true when some hold must wait for its job. */
  private async decideHolds(index: number, op: OpRecord, view: CaseView): Promise<boolean> {
    const rng = op.plan.rng;
    let waiting = false;
    for (const hold of view.holds) {
      if (hold.status !== "held" || (view.state !== "resolved" && hold.attemptRef === view.attemptRef)) continue;
      const attempt = op.attempts.find((a) => a.holdId === hold.holdId);
      const job = attempt?.jobId ? this.world.simulator.state.jobs.get(attempt.jobId) : undefined;
      if (!attempt || (job && phaseOf(job, this.world.clock.now()) !== "done")) {
        waiting = true;
        continue;
      }
      const { who, as } = this.pickPerson(op, this.world.people.finance, "finance");
      if (job?.outcome === "succeeded") {
        const charge = rng.weighted([
          ["full", 85],
          ["partial", 10],
          ["over", 5],
        ] as const);
        const chargeMicros =
          charge === "full"
            ? hold.amount
            : charge === "partial"
              ? Math.floor(hold.amount * 0.6)
              : Math.floor(hold.amount * 1.3);
        await this.steps.call(index, as, `settles a hold (${charge} charge)`, () =>
          resolveHold(this.world.db, who, hold.id, {
            kind: "settle",
            chargeMicros,
            note: `invoice line for ${attempt.attemptId}`,
            evidence: "provider invoice",
          }),
        );
      } else {
        const note = job ? "the generation failed; provider does not bill failures" : "no job exists at the provider";
        const evidence = "provider usage report shows no charge";
        // A send whose outcome the product cannot know yet (a shop died before reporting it) is not
        // released but written off, with finance's reason (DESIGN rule 18).
        const released = await this.steps.call(
          index,
          as,
          "releases a hold (no charge)",
          () => resolveHold(this.world.db, who, hold.id, { kind: "release", note, evidence }),
          ["send_outcome_unknown", "send_completed"],
        );
        if (!released.ok && released.code === "send_completed") {
          // The product knows the job completed (its case reached delivery): it was charged.
          await this.steps.call(index, as, "settles a hold the product shows completed", () =>
            resolveHold(this.world.db, who, hold.id, {
              kind: "settle",
              chargeMicros: hold.amount,
              note: `invoice line for ${attempt.attemptId}`,
              evidence: "provider invoice",
            }),
          );
        } else if (!released.ok) await this.writeOff(index, as, who, hold.id, note);
      }
    }
    return waiting;
  }
}
