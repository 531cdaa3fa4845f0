import { isUniqueViolation } from "@/lib/db/unique-violation";
import type { Principal } from "@/lib/domain/principal";
import { asksAgainAfterCopyFailure, meaningOfCopyFailure } from "@/lib/domain/provider-answer";
import { increment } from "@/lib/metrics/counters";
import type { OutputRef, ProviderAdapter } from "@/lib/providers/types";
import { type FinishOutcome, finishAction } from "@/lib/services/claim/finish-action";
import type { ClaimProof } from "@/lib/services/claim/lease-guard";
import { forgetKeptOutputs } from "@/lib/services/claim/output-urls";
import { publishDelivery, type StoredOutput } from "@/lib/services/claim/publish-delivery";
import { type AssetKey, reserveAssets } from "@/lib/services/claim/reserve-assets";
import { asStorageRefusal } from "@/lib/storage/types";
import { finishResultOf } from "./finish-result";
import type { WorkerContext } from "./worker-context";

export type KeyParts = { caseId: string; episode: number; actionId: string; fencingToken: number; outputIndex: number };

/**
 * Built from immutable IDs only (rule 12): no text a producer chose, so two producers, two
 * episodes or two claims of one action can never name the same file.
 */
export function storageKey(p: KeyParts): string {
  return `${p.caseId}/episode-${p.episode}/action-${p.actionId}/claim-${p.fencingToken}/output-${p.outputIndex}`;
}

type Delivery = {
  /** The provider's adapter, or the vault's own copies read the same way (decision 075). */
  adapter: Pick<ProviderAdapter, "downloadOutput">;
  caseId: string;
  episode: number;
  /** Never empty: a completion without outputs is parked by the policy before a copy starts. */
  outputs: [OutputRef, ...OutputRef[]];
  signal: AbortSignal;
  /** The outputs are the URLs kept from their completion, not a status read's fresh answer. */
  fromKeptUrls?: boolean;
};

/**
 * Reserves a key per output, copies every output to durable storage (streamed, size-limited,
 * host-checked and verified by the adapter), then publishes them under the claim. Any failed copy
 * parks the case with the reason; nothing partial is ever published. A refusal that a retry would
 * meet again (a taken key, an unsafe key, a store without permission or space, a unique clash)
 * ends the action at once with evidence rather than throwing and waiting for the lease to expire.
 */
export async function deliverOutputs(
  ctx: WorkerContext,
  actor: Principal,
  proof: ClaimProof,
  input: Delivery,
): Promise<FinishOutcome> {
  const unresolved = (evidence: string) => finishAction(ctx.db, actor, proof, { kind: "unresolved", evidence });
  const refused = (kind: string, evidence: string) => {
    increment("recovery_storage_refusals_total", { kind });
    return unresolved(`${evidence}; nothing was published`);
  };
  const keys: AssetKey[] = input.outputs.map((_, outputIndex) => ({
    outputIndex,
    storageKey: storageKey({ ...proof, caseId: input.caseId, episode: input.episode, outputIndex }),
  }));
  const reservation = await reserveAssets(ctx.db, actor, proof, {
    caseId: input.caseId,
    keys,
    outputs: input.outputs,
  });
  if (reservation.kind === "lost_claim") return "lost_claim";
  if (reservation.kind === "published") {
    return refused(
      "already_published",
      `this attempt's output ${reservation.outputIndexes.join(", ")} was already delivered in an earlier episode`,
    );
  }
  if (reservation.kind === "taken") {
    return refused("key_taken", `storage key already reserved by another asset: ${reservation.keys.join(", ")}`);
  }
  const stored: StoredOutput[] = [];
  // A copy that fails after earlier outputs were stored ends this claim, whose keys are spent (its
  // finish drops the reserved rows; a lost claim can never publish). The files it stored go too,
  // after that commit (DESIGN rule 20); one storage will not remove now is found on disk by
  // retention once no row names it. A claim that continues keeps its keys and its files.
  const giveUp = async (outcome: Promise<FinishOutcome>) => {
    const result = await outcome;
    if (result === "continued") return result;
    for (const { storageKey: key } of stored) await ctx.storage.remove(key).catch(() => {});
    return result;
  };
  for (const { outputIndex, storageKey: key } of keys) {
    const output = input.outputs[outputIndex] as OutputRef;
    try {
      const pending = await ctx.storage.begin(key);
      const result = await input.adapter.downloadOutput(output, pending.sink, {
        maxBytes: ctx.maxDownloadBytes,
        signal: input.signal,
        ...(output.size ? { expectedSize: output.size } : {}),
      });
      if (!result.ok) {
        await pending.abort();
        if (asksAgainAfterCopyFailure(input.fromKeptUrls === true, result.reason))
          return giveUp(askAgain(ctx, actor, proof, input, outputIndex));
        return giveUp(
          finishAction(ctx.db, actor, proof, finishResultOf(meaningOfCopyFailure(outputIndex, result), ctx)),
        );
      }
      await pending.commit().catch(async (error) => {
        await pending.abort();
        throw error;
      });
      const { sha256, size, contentType } = result;
      stored.push({ outputIndex, storageKey: key, sha256, size, ...(contentType ? { contentType } : {}) });
    } catch (error) {
      const refusal = asStorageRefusal(error);
      if (!refusal) throw error;
      return giveUp(refused(refusal.reason, `storing output ${outputIndex} was refused: ${refusal.message}`));
    }
  }
  try {
    return await publishDelivery(ctx.db, actor, proof, stored);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return refused("unique_violation", "publishing clashed with an asset already published for this attempt");
  }
}

/**
 * A kept URL the host no longer serves says nothing yet about the outputs: its signature may have
 * lapsed before the provider's retention did. The kept URLs are forgotten and the action goes back
 * to ready at once, so the next claim asks the provider for fresh ones; only that answer (or a copy
 * from it) can show the outputs gone.
 */
async function askAgain(
  ctx: WorkerContext,
  actor: Principal,
  proof: ClaimProof,
  input: Delivery,
  outputIndex: number,
): Promise<FinishOutcome> {
  await forgetKeptOutputs(ctx.db, input.caseId);
  return finishAction(ctx.db, actor, proof, {
    kind: "rescheduled",
    evidence: `the URL kept for output ${outputIndex} is no longer served; the provider is asked for the outputs again`,
    nextCheckAt: new Date(),
  });
}
