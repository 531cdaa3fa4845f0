import type { Db } from "@/lib/db/client";
import type { VaultMissReason } from "@/lib/domain/vault";

/** A pending vault copy taken by one worker, with the token that alone may finish it. */
export type ClaimedVaultCopy = {
  id: string;
  operationRef: string;
  attemptRef: string;
  provider: string;
  providerJobId: string;
  outputIndex: number;
  url: string | null;
  contentType: string | null;
  declaredBytes: number | null;
  expiresAt: Date;
  tries: number;
  claimToken: number;
};

/**
 * Takes up to `limit` due copies, soonest expiry first, as the outbox is taken: each one's next
 * attempt moves `leaseSeconds` ahead (a crash makes it due again after that) and its claim token
 * goes up, so a worker whose lease ran out cannot finish it after another took it over.
 */
export async function claimVaultCopies(
  db: Db,
  options: { limit: number; leaseSeconds: number },
): Promise<ClaimedVaultCopy[]> {
  const rows = await db.$queryRaw<(Omit<ClaimedVaultCopy, "declaredBytes"> & { declaredBytes: bigint | null })[]>`
    WITH taken AS (
      UPDATE vault_copies v
      SET next_attempt_at = now() + make_interval(secs => ${options.leaseSeconds}::int), tries = v.tries + 1,
          claim_token = v.claim_token + 1
      WHERE v.id IN (
        SELECT id FROM vault_copies WHERE status = 'pending' AND next_attempt_at <= now()
        ORDER BY expires_at LIMIT ${options.limit} FOR UPDATE SKIP LOCKED)
      RETURNING v.*)
    SELECT id::text, operation_ref::text AS "operationRef", attempt_ref::text AS "attemptRef", provider,
           provider_job_id AS "providerJobId", output_index AS "outputIndex", url, content_type AS "contentType",
           declared_bytes AS "declaredBytes", expires_at AS "expiresAt", tries, claim_token AS "claimToken"
    FROM taken ORDER BY expires_at, id`;
  return rows.map((row) => ({ ...row, declaredBytes: row.declaredBytes === null ? null : Number(row.declaredBytes) }));
}

/** Bytes the vault holds now: copies made and not yet removed. */
export async function vaultStoredBytes(db: Db): Promise<number> {
  const [row] = await db.$queryRaw<{ n: bigint }[]>`
    SELECT coalesce(sum(stored_bytes), 0)::bigint AS n FROM vault_copies WHERE status = 'copied'`;
  return Number(row?.n ?? 0n);
}

type Fence = { id: string; claimToken: number };

/**
 * What became of one claimed copy, written only by the holder of the latest token: false when the
 * claim was lost (the caller removes the file it stored). A copy made or missed forgets its URL.
 */
export type VaultFinish =
  | { kind: "copied"; storageKey: string; sha256: string; size: number; keepUntil: Date }
  | { kind: "missed"; reason: VaultMissReason; detail?: string }
  | { kind: "retry"; at: Date; detail: string };

export async function finishVaultCopy(db: Db, fence: Fence, finish: VaultFinish): Promise<boolean> {
  const where = { id: fence.id, claimToken: fence.claimToken, status: "pending" };
  const data =
    finish.kind === "copied"
      ? {
          status: "copied",
          storageKey: finish.storageKey,
          sha256: finish.sha256,
          storedBytes: BigInt(finish.size),
          copiedAt: new Date(),
          keepUntil: finish.keepUntil,
          url: null,
          lastError: null,
        }
      : finish.kind === "missed"
        ? { status: "missed", missedReason: finish.reason, url: null, lastError: finish.detail?.slice(0, 500) ?? null }
        : { nextAttemptAt: finish.at, lastError: finish.detail.slice(0, 500) };
  const { count } = await db.vaultCopy.updateMany({ where, data });
  return count === 1;
}
