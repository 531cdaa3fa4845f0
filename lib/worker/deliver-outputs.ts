import type { Principal } from "@/lib/domain/principal";
import type { OutputRef, ProviderAdapter } from "@/lib/providers/types";
import { type FinishOutcome, finishAction } from "@/lib/services/finish-action";
import type { ClaimProof } from "@/lib/services/lease-guard";
import { publishDelivery, type StoredOutput } from "@/lib/services/publish-delivery";
import type { WorkerContext } from "./worker-context";

const keyPart = (text: string) => text.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 120) || "_";

/** Deterministic per operation, output and claim: two claims never write the same key. */
export function storageKey(operationId: string, fencingToken: number, outputIndex: number): string {
  return `${keyPart(operationId)}/claim-${fencingToken}/output-${outputIndex}`;
}

/**
 * Copies every output to durable storage (streamed, size-limited, host-checked and verified by the
 * adapter), then publishes them under the claim. Any failed copy parks the case with the reason;
 * nothing partial is ever published.
 */
export async function deliverOutputs(
  ctx: WorkerContext,
  actor: Principal,
  proof: ClaimProof,
  input: { adapter: ProviderAdapter; operationId: string; outputs: OutputRef[]; signal: AbortSignal },
): Promise<FinishOutcome> {
  if (input.outputs.length === 0) {
    return finishAction(ctx.db, actor, proof, {
      kind: "unresolved",
      evidence: "the provider reported no outputs to deliver",
    });
  }
  const stored: StoredOutput[] = [];
  for (const [outputIndex, output] of input.outputs.entries()) {
    const key = storageKey(input.operationId, proof.fencingToken, outputIndex);
    const pending = await ctx.storage.begin(key);
    const result = await input.adapter.downloadOutput(output, pending.sink, {
      maxBytes: ctx.maxDownloadBytes,
      signal: input.signal,
      ...(output.size ? { expectedSize: output.size } : {}),
    });
    if (!result.ok) {
      await pending.abort();
      // 403/404/410 from the file host: the provider deleted the file, so another copy cannot help.
      return finishAction(ctx.db, actor, proof, {
        kind: result.reason === "not_available" ? "outputs_unavailable" : "unresolved",
        evidence: `copying output ${outputIndex} failed: ${result.reason} (${result.detail}); nothing was published`,
      });
    }
    await pending.commit();
    stored.push({
      outputIndex,
      storageKey: key,
      sha256: result.sha256,
      size: result.size,
      contentType: result.contentType,
    });
  }
  return publishDelivery(ctx.db, actor, proof, stored);
}
