import type { Db } from "@/lib/db/client";

export type VaultedOutput = {
  outputIndex: number;
  storageKey: string;
  sha256: string;
  size: number;
  contentType: string | null;
  copiedAt: Date;
};

/**
 * The product's own copies of the case's current attempt's outputs (decision 075), when every
 * output recorded for it was copied and is still kept; otherwise null, and delivery goes to the
 * provider as before. A delivery reads these first, so a case opened after the provider's
 * retention still finds its outputs.
 */
export async function vaultedOutputs(db: Db, caseId: string): Promise<[VaultedOutput, ...VaultedOutput[]] | null> {
  const rows = await db.$queryRaw<
    {
      outputIndex: number;
      status: string;
      storageKey: string | null;
      sha256: string | null;
      size: bigint | null;
      contentType: string | null;
      copiedAt: Date | null;
    }[]
  >`
    SELECT v.output_index AS "outputIndex", v.status, v.storage_key AS "storageKey", v.sha256,
           v.stored_bytes AS size, v.content_type AS "contentType", v.copied_at AS "copiedAt"
    FROM cases c JOIN vault_copies v ON v.attempt_ref = c.attempt_ref
    WHERE c.id = ${caseId}::uuid ORDER BY v.output_index`;
  const copied = rows.flatMap((row, index) =>
    row.status === "copied" && row.outputIndex === index && row.storageKey && row.sha256 && row.copiedAt
      ? [
          {
            outputIndex: row.outputIndex,
            storageKey: row.storageKey,
            sha256: row.sha256,
            size: Number(row.size ?? 0n),
            contentType: row.contentType,
            copiedAt: row.copiedAt,
          },
        ]
      : [],
  );
  const [first, ...rest] = copied;
  return first && copied.length === rows.length ? [first, ...rest] : null;
}

/** When the product kept each of the attempts' outputs, for the case page (decision 075). */
export async function vaultTimes(db: Db, attemptRefs: string[]): Promise<Map<string, Date>> {
  if (attemptRefs.length === 0) return new Map();
  const rows = await db.vaultCopy.findMany({
    where: { attemptRef: { in: attemptRefs }, status: "copied" },
    select: { attemptRef: true, outputIndex: true, copiedAt: true },
  });
  return new Map(rows.flatMap((row) => (row.copiedAt ? [[`${row.attemptRef}:${row.outputIndex}`, row.copiedAt]] : [])));
}
