import type { DownloadFailure } from "./job-status";

/**
 * The output vault's policy (decision 075): which providers' outputs the product keeps a copy of
 * when no case will, how large one copy and all of them may be, and how long a copy is kept.
 * `short`: only providers whose documented retention is at most SHORT_RETENTION_SECONDS.
 */
export type VaultProviders = "short" | "all" | "off" | readonly string[];

export type VaultPolicy = {
  providers: VaultProviders;
  maxFileBytes: number;
  maxTotalBytes: number;
  keepSeconds: number;
};

/**
 * How long an output is taken to last when neither the provider's answer nor its documented
 * retention says (only under `all`): an hour, the shortest any provider documents, as for kept URLs.
 */
export const DEFAULT_OUTPUT_SECONDS = 60 * 60;

/** fal and Replicate keep outputs about an hour; Runway a day and Veo two days are left to a case. */
export const SHORT_RETENTION_SECONDS = 6 * 60 * 60;

const MIB = 1024 * 1024;

export const DEFAULT_VAULT_POLICY: VaultPolicy = {
  providers: "short",
  maxFileBytes: 512 * MIB,
  maxTotalBytes: 50 * 1024 * MIB,
  keepSeconds: 7 * 24 * 60 * 60,
};

/** Why an output was not kept, in the words metrics label it with. */
export type VaultMissReason = "expired" | "too_large" | "vault_full" | "gone" | "no_provider" | "refused";

/** `short`, `all`, `off`, or a comma list of provider names; null when it is none of these. */
export function parseVaultProviders(raw: string): VaultProviders | null {
  const value = raw.trim().toLowerCase();
  if (value === "short" || value === "all" || value === "off") return value;
  const names = value
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  return names.length > 0 && names.every((name) => /^[a-z0-9-]+$/.test(name)) ? names : null;
}

/** Whether the policy keeps this provider's outputs, given the retention it documents (if any). */
export function vaultKeeps(policy: VaultPolicy, provider: string, retentionSeconds: number | undefined): boolean {
  const { providers } = policy;
  if (providers === "off") return false;
  if (providers === "all") return true;
  if (providers === "short") return retentionSeconds !== undefined && retentionSeconds <= SHORT_RETENTION_SECONDS;
  return providers.includes(provider);
}

export type CopyPlan = { kind: "copy"; maxBytes: number } | { kind: "missed"; reason: VaultMissReason };

/**
 * Before a copy starts: past the provider's expiry there is nothing left to fetch; a size the
 * provider declared over either bound is missed at once; otherwise the download is cut at whichever
 * bound is smaller (one file's, or what the vault has left).
 */
export function planCopy(
  copy: { expiresAt: Date; declaredBytes: number | null },
  storedBytes: number,
  policy: VaultPolicy,
  now: Date,
): CopyPlan {
  if (copy.expiresAt.getTime() <= now.getTime()) return { kind: "missed", reason: "expired" };
  const room = policy.maxTotalBytes - storedBytes;
  if (copy.declaredBytes !== null && copy.declaredBytes > policy.maxFileBytes)
    return { kind: "missed", reason: "too_large" };
  if (room <= 0 || (copy.declaredBytes !== null && copy.declaredBytes > room))
    return { kind: "missed", reason: "vault_full" };
  return { kind: "copy", maxBytes: Math.min(policy.maxFileBytes, room) };
}

export type CopyFailurePlan = { kind: "missed"; reason: VaultMissReason } | { kind: "retry"; at: Date };

/** First retry after a failed copy; each next one waits twice as long, never past the expiry. */
export const VAULT_RETRY_BASE_SECONDS = 30;

/**
 * After a failed download: a file over the bound or one the host no longer serves will not change
 * on a retry; anything else (a timeout, a 5xx, a dropped connection) is tried again until the
 * provider's expiry, which then ends it as expired.
 */
export function planAfterFailure(
  failure: DownloadFailure,
  bound: { maxBytes: number; maxFileBytes: number },
  tries: number,
  expiresAt: Date,
  now: Date,
): CopyFailurePlan {
  if (failure === "too_large") {
    return { kind: "missed", reason: bound.maxBytes < bound.maxFileBytes ? "vault_full" : "too_large" };
  }
  if (failure === "not_available") return { kind: "missed", reason: "gone" };
  if (failure === "host_not_allowed" || failure === "malformed_inline") return { kind: "missed", reason: "refused" };
  const wait = VAULT_RETRY_BASE_SECONDS * 2 ** Math.min(Math.max(tries - 1, 0), 10) * 1000;
  const at = new Date(Math.min(now.getTime() + wait, expiresAt.getTime()));
  return at.getTime() <= now.getTime() ? { kind: "missed", reason: "expired" } : { kind: "retry", at };
}

/** Vault files are named by immutable IDs only (rule 12), the claim's token last, so two claims never share a key. */
export function vaultKey(parts: { operationRef: string; attemptRef: string; outputIndex: number; claimToken: number }) {
  return `vault/${parts.operationRef}/${parts.attemptRef}/output-${parts.outputIndex}/claim-${parts.claimToken}`;
}

/** The vault's settings as the environment gives them (lib/env.ts); unset ones take the defaults. */
export type VaultSettings = {
  VAULT_PROVIDERS?: string | undefined;
  VAULT_MAX_FILE_BYTES?: number | undefined;
  VAULT_MAX_TOTAL_BYTES?: number | undefined;
  VAULT_KEEP_HOURS?: number | undefined;
};

/** The policy the settings describe, the documented defaults where one is unset (decision 075). */
export function vaultPolicyOf(settings: VaultSettings): VaultPolicy {
  const providers = settings.VAULT_PROVIDERS ? parseVaultProviders(settings.VAULT_PROVIDERS) : null;
  return {
    providers: providers ?? DEFAULT_VAULT_POLICY.providers,
    maxFileBytes: settings.VAULT_MAX_FILE_BYTES ?? DEFAULT_VAULT_POLICY.maxFileBytes,
    maxTotalBytes: settings.VAULT_MAX_TOTAL_BYTES ?? DEFAULT_VAULT_POLICY.maxTotalBytes,
    keepSeconds:
      settings.VAULT_KEEP_HOURS !== undefined ? settings.VAULT_KEEP_HOURS * 3600 : DEFAULT_VAULT_POLICY.keepSeconds,
  };
}
