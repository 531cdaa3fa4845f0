import type { Db } from "@/lib/db/client";
import { type MicrosTotal, toMicrosTotal } from "@/lib/domain/money";
import { unexplainedChargesSql } from "./unexplained-charges-sql";

export type UnexplainedFigures = {
  /** Charges per provider: a job (however many lines and currencies it has) or a line naming no job. */
  byProvider: { provider: string; count: number }[];
  /** Their money per provider and currency (jobs only listed, not yet priced by a line, add none). */
  money: { provider: string; currency: string; micros: MicrosTotal }[];
};

/**
 * What the metric and the alert rule count (decision 074): every charge no operation explains, by
 * provider, and its money by provider and currency. Read with the caller's permission checked (a
 * scrape, an alert round), outside any transaction.
 */
export async function unexplainedFigures(db: Db): Promise<UnexplainedFigures> {
  const rows = await db.$queryRaw<
    { provider: string; currency: string | null; whole: boolean; charges: bigint; micros: bigint }[]
  >`
    WITH charges AS (${unexplainedChargesSql(null)})
    SELECT provider, currency, GROUPING(currency) = 1 AS whole,
           count(DISTINCT coalesce(provider_job_id, line_id))::bigint AS charges, sum(micros)::bigint AS micros
    FROM charges GROUP BY GROUPING SETS ((provider), (provider, currency)) ORDER BY provider, currency`;
  // The (provider) set counts each charge once whatever its currencies; (provider, currency) sums money.
  return {
    byProvider: rows.filter((r) => r.whole).map((r) => ({ provider: r.provider, count: Number(r.charges) })),
    money: rows
      .filter((r) => !r.whole && r.currency !== null && r.micros !== 0n)
      .map((r) => ({ provider: r.provider, currency: r.currency ?? "", micros: toMicrosTotal(r.micros) })),
  };
}
