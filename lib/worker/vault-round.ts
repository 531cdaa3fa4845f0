import { DEFAULT_VAULT_POLICY, planAfterFailure, planCopy, type VaultMissReason, vaultKey } from "@/lib/domain/vault";
import {
  type ClaimedVaultCopy,
  claimVaultCopies,
  finishVaultCopy,
  type VaultFinish,
  vaultStoredBytes,
} from "@/lib/services/vault/claim-vault-copies";
import { asStorageRefusal, type PendingWrite } from "@/lib/storage/types";
import { workerLog } from "./log";
import type { WorkerContext } from "./worker-context";

/** Copies taken per tick: the vault is a safety net and must not crowd out recovery actions. */
const VAULT_COPIES_PER_TICK = 10;

/**
 * Decision 075: copies the outputs the product learned completed with no case to copy them, after
 * the commit that recorded the intent (rule 9), into asset storage under the operation, within the
 * provider's retention and the policy's bounds. Leased and fenced per copy; a copy not finished
 * (a crash, a lost lease) is due again once its lease passes, until its expiry ends it as missed.
 */
export async function copyToVault(ctx: WorkerContext, deadline: number): Promise<{ copied: number; missed: number }> {
  const tally = { copied: 0, missed: 0 };
  if (deadline <= Date.now()) return tally;
  const due = await claimVaultCopies(ctx.db, { limit: VAULT_COPIES_PER_TICK, leaseSeconds: ctx.leaseSeconds });
  for (const copy of due) {
    // What is not started stays leased and is due again after its lease: nothing is lost.
    if (Date.now() >= deadline) break;
    const outcome = await copyOne(ctx, copy, deadline).catch((error: unknown) => {
      workerLog(
        { step: "vault_error", copyId: copy.id, error: error instanceof Error ? error.message : String(error) },
        "error",
      );
      return "error" as const;
    });
    if (outcome === "copied") tally.copied += 1;
    if (outcome === "missed") tally.missed += 1;
  }
  return tally;
}

type CopyOutcome = "copied" | "missed" | "retry" | "lost_claim";

async function copyOne(ctx: WorkerContext, copy: ClaimedVaultCopy, deadline: number): Promise<CopyOutcome> {
  const policy = ctx.vault ?? DEFAULT_VAULT_POLICY;
  const now = ctx.now?.() ?? new Date();
  const fence = { id: copy.id, claimToken: copy.claimToken };
  const finish = async (result: VaultFinish): Promise<CopyOutcome> => {
    if (!(await finishVaultCopy(ctx.db, fence, result))) return "lost_claim";
    workerLog({ step: `vault_${result.kind}`, copyId: copy.id, provider: copy.provider, ...reasonOf(result) });
    return result.kind;
  };
  const missed = (reason: VaultMissReason, detail?: string) =>
    finish({ kind: "missed", reason, ...(detail ? { detail } : {}) });
  const adapter = ctx.adapters[copy.provider as keyof typeof ctx.adapters];
  if (!adapter || !copy.url) return missed("no_provider");
  const plan = planCopy(copy, await vaultStoredBytes(ctx.db), policy, now);
  if (plan.kind === "missed") return missed(plan.reason);
  const key = vaultKey(copy);
  let pending: PendingWrite | null = null;
  try {
    pending = await ctx.storage.begin(key);
    const result = await adapter.downloadOutput(
      {
        url: copy.url,
        expiresAt: copy.expiresAt.toISOString(),
        ...(copy.contentType ? { contentType: copy.contentType } : {}),
      },
      pending.sink,
      {
        maxBytes: plan.maxBytes,
        signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())),
        ...(copy.declaredBytes !== null ? { expectedSize: copy.declaredBytes } : {}),
      },
    );
    if (!result.ok) {
      await pending.abort();
      // The reason and status only: a host's message may echo the signed URL (rule 10).
      const detail = `${result.reason}${result.httpStatus ? ` (HTTP ${result.httpStatus})` : ""}`;
      const next = planAfterFailure(
        result.reason,
        { maxBytes: plan.maxBytes, maxFileBytes: policy.maxFileBytes },
        copy.tries,
        copy.expiresAt,
        now,
      );
      return next.kind === "missed" ? missed(next.reason, detail) : finish({ kind: "retry", at: next.at, detail });
    }
    const stored = await pending.commit();
    const keepUntil = new Date(now.getTime() + policy.keepSeconds * 1000);
    const outcome = await finish({
      kind: "copied",
      storageKey: key,
      sha256: result.sha256,
      size: stored.size,
      keepUntil,
    });
    // A claim lost meanwhile: the copy that counts is the new holder's; this file is nobody's.
    if (outcome === "lost_claim") await ctx.storage.remove(key).catch(() => {});
    return outcome;
  } catch (error) {
    await pending?.abort().catch(() => {});
    const refusal = asStorageRefusal(error);
    if (!refusal) throw error;
    return missed("refused", `storage refused the copy (${refusal.reason})`);
  }
}

function reasonOf(result: VaultFinish): Record<string, unknown> {
  if (result.kind === "copied") return { bytes: result.size };
  if (result.kind === "missed") return { reason: result.reason };
  return { retryAt: result.at.toISOString() };
}
