import type { Db } from "@/lib/db/client";
import type { Family } from "@/lib/metrics/figures";

/**
 * The vault's figures for the scrape (decision 075), from its rows, so every process reports the
 * same counts and a restart loses none: copies made (removed ones still count), copies missed by
 * provider and reason, and the bytes the vault holds now.
 */
export async function vaultFamilies(db: Db): Promise<Family[]> {
  const rows = await db.$queryRaw<
    { provider: string; status: string; reason: string | null; n: bigint; bytes: bigint }[]
  >`
    SELECT provider, status, missed_reason AS reason, count(*) AS n, coalesce(sum(stored_bytes), 0)::bigint AS bytes
    FROM vault_copies WHERE status <> 'pending' GROUP BY provider, status, missed_reason`;
  const made = new Map<string, number>();
  for (const row of rows.filter((r) => r.status === "copied" || r.status === "removed"))
    made.set(row.provider, (made.get(row.provider) ?? 0) + Number(row.n));
  const held = rows.filter((r) => r.status === "copied").reduce((sum, r) => sum + Number(r.bytes), 0);
  return [
    {
      name: "recovery_vault_copies_total",
      samples: [...made].map(([provider, value]) => ({ labels: { provider }, value })),
    },
    {
      name: "recovery_vault_missed_total",
      samples: rows
        .filter((r) => r.status === "missed")
        .map((r) => ({ labels: { provider: r.provider, reason: r.reason ?? "unknown" }, value: Number(r.n) })),
    },
    { name: "recovery_vault_bytes", samples: [{ value: held }] },
  ];
}
