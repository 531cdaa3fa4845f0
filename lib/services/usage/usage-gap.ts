import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import type { Principal } from "@/lib/domain/principal";
import { requirePermission, visibleProducers } from "../access/actor";
import { toCount, toTotal } from "../finance/finance-micros";

const GAP_ROWS = 500;
const UNEXPLAINED_ROWS = 50;

type GapRow = {
  provider: string;
  model: string;
  producer: string;
  day: string;
  currency: string;
  jobs: bigint;
  reserved: bigint;
  charged: bigint;
};

type UnexplainedRow = {
  id: string;
  provider: string;
  provider_job_id: string | null;
  model: string | null;
  usage_at: Date;
  amount_micros: bigint;
  currency: string;
  unmatched_reason: string;
  imported_at: Date;
};

/**
 * Finance's view of the provider's real charge (decision 073): per provider, model, producer, day
 * (UTC, of the hold) and currency, the holds an imported line settled or corrected, what they
 * reserved, what the provider charged (the sum of their lines, which the ledger now equals) and the
 * gap between the two. Within the person's producers (decision 035). Unexplained lines name no
 * producer, so only a person who sees every producer reads them; a line finance explained as made
 * outside the product (decision 074) is no longer one.
 */
export async function usageGap(db: Db, actor: Principal, input: { days: number }) {
  requirePermission(actor, "usage:import");
  const producers = visibleProducers(actor, null);
  const since = new Date(Date.now() - input.days * 86_400_000);
  const scope = producers === null ? Prisma.sql`TRUE` : Prisma.sql`h.producer = ANY(${producers}::text[])`;
  const rows = await db.$queryRaw<GapRow[]>`
    WITH lines AS (
      SELECT u.hold_ref, sum(u.amount_micros)::bigint AS charged FROM usage_lines u
      WHERE u.hold_ref IS NOT NULL GROUP BY u.hold_ref
    )
    SELECT o.provider, o.model, h.producer, to_char(date_trunc('day', h.created_at, 'UTC'), 'YYYY-MM-DD') AS day,
           h.currency, count(*)::bigint AS jobs, sum(h.amount_micros)::bigint AS reserved,
           sum(l.charged)::bigint AS charged
    FROM lines l JOIN holds h ON h.id = l.hold_ref JOIN attempts a ON a.id = h.attempt_ref
      JOIN operations o ON o.id = a.operation_ref
    WHERE h.created_at >= ${since} AND ${scope}
    GROUP BY 1, 2, 3, 4, 5 ORDER BY 4 DESC, 1, 2, 3, 5 LIMIT ${GAP_ROWS}`;
  const unexplained =
    producers === null
      ? await db.$queryRaw<UnexplainedRow[]>`
          SELECT id::text, provider, provider_job_id, model, usage_at, amount_micros, currency, unmatched_reason, imported_at
          FROM usage_lines WHERE hold_ref IS NULL AND explained_at IS NULL ORDER BY imported_at DESC, id LIMIT ${UNEXPLAINED_ROWS}`
      : [];
  const [counted] =
    producers === null
      ? await db.$queryRaw<
          { count: bigint }[]
        >`SELECT count(*)::bigint AS count FROM usage_lines WHERE hold_ref IS NULL AND explained_at IS NULL`
      : [{ count: 0n }];
  return {
    days: input.days,
    rows: rows.map((row) => ({
      provider: row.provider,
      model: row.model,
      producer: row.producer,
      day: row.day,
      currency: row.currency,
      jobs: toCount(row.jobs),
      reservedMicros: toTotal(row.reserved),
      chargedMicros: toTotal(row.charged),
      gapMicros: toTotal(row.charged - row.reserved),
    })),
    unexplained: {
      visible: producers === null,
      count: toCount(counted?.count ?? 0n),
      lines: unexplained.map((line) => ({
        id: line.id,
        provider: line.provider,
        providerJobId: line.provider_job_id,
        model: line.model,
        usageAt: line.usage_at.toISOString(),
        amountMicros: toTotal(line.amount_micros),
        currency: line.currency,
        reason: line.unmatched_reason,
        importedAt: line.imported_at.toISOString(),
      })),
    },
  };
}

export type UsageGapView = Awaited<ReturnType<typeof usageGap>>;
