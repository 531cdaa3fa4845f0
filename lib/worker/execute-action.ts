import type { Principal } from "@/lib/domain/principal";
import { increment } from "@/lib/metrics/counters";
import { withOutputExpiry } from "@/lib/providers/output-expiry";
import { type ClaimedAction, proofOf } from "@/lib/services/claim-actions";
import { type FinishOutcome, type FinishResult, finishAction } from "@/lib/services/finish-action";
import { providerForgotJob } from "@/lib/services/job-forgotten";
import type { ClaimProof } from "@/lib/services/lease-guard";
import { recordObservation } from "@/lib/services/record-observation";
import { deliverOutputs } from "./deliver-outputs";
import { nextCheckDelayMs } from "./next-check-delay";
import type { WorkerContext } from "./worker-context";

export type TickOutcome = "resolved" | "rescheduled" | "parked" | "lost_claim" | "error";

function tickOutcome(outcome: FinishOutcome): TickOutcome {
  if (outcome === "continued" || outcome === "released") return "rescheduled";
  return outcome;
}

/** Runs one claimed action and counts what leaves no row behind (lost claims, unanswered checks). */
export async function executeAction(
  ctx: WorkerContext,
  actor: Principal & { kind: "worker" },
  claimed: ClaimedAction,
  signal: AbortSignal,
): Promise<TickOutcome> {
  const outcome = await runAction(ctx, actor, claimed, signal);
  if (outcome === "lost_claim") increment("recovery_lost_claims_total", { kind: claimed.kind });
  return outcome;
}

/**
 * Runs one claimed action: a status check (resume_poll) or a copy (retry_delivery). It calls the
 * provider only to read status and download outputs; there is no way to create a job from here.
 */
async function runAction(
  ctx: WorkerContext,
  actor: Principal & { kind: "worker" },
  claimed: ClaimedAction,
  signal: AbortSignal,
): Promise<TickOutcome> {
  const proof: ClaimProof = proofOf(claimed, actor.workerId);
  const row = await ctx.db.case.findUniqueOrThrow({
    where: { id: claimed.caseId },
    select: { provider: true, model: true, providerJobId: true, pollAttempts: true },
  });
  const adapter = ctx.adapters[row.provider as keyof typeof ctx.adapters];
  if (!adapter || !row.providerJobId) {
    // Live mode runs with the providers that have keys; a case for another one parks with the
    // reason on its timeline rather than failing the whole tick.
    const evidence = !adapter
      ? `provider "${row.provider}" is not configured in this deployment (no API key in live mode): the job was not checked`
      : "the case has no provider job ID to check";
    return tickOutcome(await finishAction(ctx.db, actor, proof, { kind: "unresolved", evidence }));
  }
  let status: Awaited<ReturnType<typeof adapter.getJob>>;
  try {
    const answer = await adapter.getJob({ providerJobId: row.providerJobId, model: row.model }, { signal });
    status = withOutputExpiry(answer, adapter.capabilities, new Date());
  } catch (error) {
    if (signal.aborted) throw error;
    // A request the adapter cannot even form (e.g. a malformed model id) will not fix itself on a
    // retry: park with the reason instead of failing the same way after every lease expiry.
    const reason = error instanceof Error ? error.message : String(error);
    return tickOutcome(
      await finishAction(ctx.db, actor, proof, {
        kind: "unresolved",
        evidence: `the status check could not be made: ${reason}`,
      }),
    );
  }
  if (status.kind === "unknown" || status.kind === "not_found") {
    increment("recovery_provider_errors_total", { provider: row.provider, kind: status.kind });
  }
  if (!(await recordObservation(ctx.db, actor, proof, status))) return "lost_claim";

  switch (status.kind) {
    case "running": {
      if (claimed.stage !== "polling") {
        return tickOutcome(
          await finishAction(ctx.db, actor, proof, {
            kind: "unresolved",
            evidence: "the job is running again; delivery cannot start",
          }),
        );
      }
      const delay = nextCheckDelayMs(row.pollAttempts + 1, ctx.pollBaseSeconds, ctx.pollMaxSeconds, ctx.random);
      return tickOutcome(
        await finishAction(ctx.db, actor, proof, {
          kind: "rescheduled",
          evidence: `provider status ${status.providerStatus}: still running`,
          nextCheckAt: new Date(Date.now() + delay),
        }),
      );
    }
    case "completed":
      if (status.outputsRemoved) {
        return tickOutcome(
          await finishAction(ctx.db, actor, proof, {
            kind: "outputs_unavailable",
            evidence: `provider status ${status.providerStatus}: the outputs were removed (retention passed)`,
          }),
        );
      }
      return tickOutcome(
        await deliverOutputs(ctx, actor, proof, {
          adapter,
          caseId: claimed.caseId,
          episode: claimed.episode,
          outputs: status.outputs,
          signal,
        }),
      );
    case "failed": {
      const evidence = `provider reports ${status.providerStatus}: ${status.reason}`;
      const result: FinishResult =
        claimed.stage === "polling"
          ? { kind: "moved", stage: "generation_failed", evidence }
          : { kind: "unresolved", evidence };
      return tickOutcome(await finishAction(ctx.db, actor, proof, result));
    }
    case "unknown":
      // Completion was seen before (the case is a delivery), so a result that is gone now means the
      // provider deleted it (fal keeps results for an hour), not that the outcome is in doubt.
      if (claimed.stage === "delivery" && status.reason === "result_unavailable") {
        return tickOutcome(
          await finishAction(ctx.db, actor, proof, {
            kind: "outputs_unavailable",
            evidence: `the provider no longer has the job's result (HTTP ${status.httpStatus ?? "?"})`,
          }),
        );
      }
      if (status.retryAfterMs && claimed.stage === "polling") {
        // Throttling says nothing about the job: look again when the provider allows it.
        return tickOutcome(
          await finishAction(ctx.db, actor, proof, {
            kind: "rescheduled",
            evidence: `provider throttled the check (${status.reason})`,
            nextCheckAt: new Date(Date.now() + status.retryAfterMs),
          }),
        );
      }
      return tickOutcome(
        await finishAction(ctx.db, actor, proof, {
          kind: "unresolved",
          evidence: `status unknown after ${status.attempts} attempts: ${status.reason}`,
        }),
      );
    case "not_found":
      if (claimed.stage === "delivery" && (await providerForgotJob(ctx.db, claimed.caseId))) {
        return tickOutcome(
          await finishAction(ctx.db, actor, proof, {
            kind: "outputs_unavailable",
            evidence: `the provider did not know job ${row.providerJobId} on two separate checks (HTTP ${status.httpStatus}): there is nothing to copy`,
          }),
        );
      }
      return tickOutcome(
        await finishAction(ctx.db, actor, proof, {
          kind: "unresolved",
          evidence: `the provider does not know job ${row.providerJobId} (HTTP ${status.httpStatus})`,
        }),
      );
  }
}
