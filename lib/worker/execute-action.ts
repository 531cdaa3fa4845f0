import type { Principal } from "@/lib/domain/principal";
import {
  earlierChecksNeeded,
  meaningOf,
  NOT_FOUND_CHECKS_THAT_AGREE,
  usesKeptOutputs,
  verdictBeforeAsking,
  verdictWhenCheckFailed,
} from "@/lib/domain/provider-answer";
import { increment } from "@/lib/metrics/counters";
import { withOutputExpiry } from "@/lib/providers/output-expiry";
import type { JobStatus } from "@/lib/providers/types";
import { type ClaimedAction, proofOf } from "@/lib/services/claim/claim-actions";
import { earlierChecks } from "@/lib/services/claim/earlier-checks";
import { type FinishOutcome, finishAction } from "@/lib/services/claim/finish-action";
import type { ClaimProof } from "@/lib/services/claim/lease-guard";
import { keptOutputs } from "@/lib/services/claim/output-urls";
import { recordObservation } from "@/lib/services/claim/record-observation";
import { vaultedOutputs } from "@/lib/services/vault/vaulted-outputs";
import { boundedFinishResult } from "./bounded-finish";
import { deliverOutputs } from "./deliver-outputs";
import type { EndingVerdict } from "./finish-result";
import { vaultOutputRefs, vaultSource } from "./vault-source";
import type { WorkerContext } from "./worker-context";

export type TickOutcome = "resolved" | "rescheduled" | "parked" | "lost_claim" | "error";

function tickOutcome(outcome: FinishOutcome): TickOutcome {
  if (outcome === "continued" || outcome === "released") return "rescheduled";
  return outcome;
}

type Worker = Principal & { kind: "worker" };

/** Runs one claimed action and counts what leaves no row behind (lost claims, unanswered checks). */
export async function executeAction(
  ctx: WorkerContext,
  actor: Worker,
  claimed: ClaimedAction,
  signal: AbortSignal,
): Promise<TickOutcome> {
  const outcome = await runAction(ctx, actor, claimed, signal);
  if (outcome === "lost_claim") increment("recovery_lost_claims_total", { kind: claimed.kind });
  return outcome;
}

/**
 * Runs one claimed action: with the case as the claim returned it, ask the provider for the job's
 * status, record the answer, apply what it means (lib/domain/provider-answer.ts). It calls the provider only to read
 * status and download outputs; there is no way to create a job from here.
 */
async function runAction(ctx: WorkerContext, actor: Worker, claimed: ClaimedAction, signal: AbortSignal) {
  const proof: ClaimProof = proofOf(claimed, actor.workerId);
  const finish = async (verdict: EndingVerdict) =>
    tickOutcome(await finishAction(ctx.db, actor, proof, await boundedFinishResult(ctx, claimed, verdict)));

  const { provider, model, providerJobId, pollAttempts } = claimed;
  const adapter = ctx.adapters[provider as keyof typeof ctx.adapters];
  const early = verdictBeforeAsking(claimed.stage, claimed.kind, {
    provider,
    providerJobId,
    providerConfigured: adapter !== undefined,
  });
  if (early) return finish(early);
  if (!adapter || !providerJobId) throw new Error("unreachable: a case with nothing to ask was parked above");
  const { caseId, episode } = claimed;

  // The product's own copy comes first (decision 075): kept while the provider still had the
  // outputs, it cannot be found gone however late the case opened.
  const vaulted = await usableVaultCopies(ctx, caseId);
  const fromVault = (copies: NonNullable<typeof vaulted>) =>
    deliverOutputs(ctx, actor, proof, {
      adapter: vaultSource(ctx.storage, copies),
      caseId,
      episode,
      outputs: vaultOutputRefs(copies),
      signal,
    }).then(tickOutcome);
  if (vaulted && usesKeptOutputs(claimed.stage)) return fromVault(vaulted);

  // The saving step fetches the outputs from the URLs their completion handed out while those still
  // work; only without them (none kept, or expiring) is the provider asked again (decision 043).
  const kept = usesKeptOutputs(claimed.stage) ? await keptOutputs(ctx.db, caseId) : null;
  if (kept) {
    return tickOutcome(
      await deliverOutputs(ctx, actor, proof, { adapter, caseId, episode, outputs: kept, signal, fromKeptUrls: true }),
    );
  }

  let answer: JobStatus;
  try {
    const status = await adapter.getJob({ providerJobId, model }, { signal });
    answer = withOutputExpiry(status, adapter.capabilities, new Date());
  } catch (error) {
    if (signal.aborted) throw error;
    return finish(verdictWhenCheckFailed(error instanceof Error ? error.message : String(error)));
  }
  if (answer.kind === "unknown" || answer.kind === "not_found") {
    increment("recovery_provider_errors_total", { provider, kind: answer.kind });
  }

  const verdict = meaningOf(claimed.stage, claimed.kind, answer, {
    providerJobId,
    checksSoFar: pollAttempts,
    claim: { actionId: claimed.actionId, fencingToken: claimed.fencingToken },
    ...(earlierChecksNeeded(claimed.stage, claimed.kind, answer)
      ? { earlierChecks: await earlierChecks(ctx.db, claimed.caseId, NOT_FOUND_CHECKS_THAT_AGREE - 1) }
      : {}),
  });
  if (!(await recordObservation(ctx.db, actor, proof, answer))) return "lost_claim";
  // A completion, or outputs the provider no longer has, is delivered from the product's copy first.
  if (vaulted && (verdict.kind === "deliver" || verdict.kind === "outputs_unavailable")) return fromVault(vaulted);
  // A hold finance released before is charged in the observation's own transaction (DESIGN rule 18).
  if (verdict.kind !== "deliver") return finish(verdict);
  return tickOutcome(
    await deliverOutputs(ctx, actor, proof, { adapter, caseId, episode, outputs: verdict.outputs, signal }),
  );
}

/** The vault's copies of the case's attempt, when every file is still in storage (decision 075). */
async function usableVaultCopies(ctx: WorkerContext, caseId: string) {
  const copies = await vaultedOutputs(ctx.db, caseId);
  if (!copies) return null;
  const present = await Promise.all(copies.map((copy) => ctx.storage.exists(copy.storageKey)));
  return present.every(Boolean) ? copies : null;
}
