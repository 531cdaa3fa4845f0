import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { foldWhenDue } from "@/lib/db/stat-figures";
import { ALERT_KINDS, type AlertFigures, type AlertRuleKind } from "@/lib/domain/alert-rules";
import { toMicrosTotal } from "@/lib/domain/money";
import { caseFlagFigures } from "../case/case-flags";
import { openLateChargeFigures } from "../hold/late-charge-figures";
import { producerNotToldCount } from "../notification/producer-not-told";
import { outputsExpiringSoon } from "../overview/overview-expiring";
import { unexplainedFigures } from "../usage/unexplained-figures";

type Money = { currency: string; n: bigint; held: bigint };

const fromMoneyRows = (rows: Money[]): AlertFigures => ({
  count: rows.reduce((sum, row) => sum + Number(row.n), 0),
  held: rows.filter((row) => row.held > 0n).map((row) => ({ currency: row.currency, micros: toMicrosTotal(row.held) })),
});

type FigureRule = { kind: AlertRuleKind; windowMinutes: number };

/**
 * The figures of one round's rules, each read once however many rules judge it: by kind, and by
 * window where the kind looks back over one; both flag kinds share the one read of the case flags.
 * Read outside any transaction (the round's writes are per rule and short), at the round's `now`.
 */
export function roundFigures(db: Db, now: Date): (rule: FigureRule) => Promise<AlertFigures> {
  const reads = new Map<string, Promise<unknown>>();
  const once = <T>(key: string, read: () => Promise<T>): Promise<T> => {
    if (!reads.has(key)) reads.set(key, read());
    return reads.get(key) as Promise<T>;
  };
  const flags = () =>
    once("case_flags", async () => {
      // The running totals fold first when enough deltas wait, on the pool, never in an alert's transaction.
      await foldWhenDue(db);
      return caseFlagFigures(db);
    });
  return (rule) => {
    const key = ALERT_KINDS[rule.kind].window === "looks back" ? `${rule.kind}:${rule.windowMinutes}` : rule.kind;
    return once(key, () => readFigures(db, rule, now, flags));
  };
}

/** One rule's figures on their own (a round reads them through `roundFigures`). */
export function alertFigures(db: Db, rule: FigureRule, now: Date): Promise<AlertFigures> {
  return roundFigures(db, now)(rule);
}

/**
 * The figures one rule is judged on, read the way the overview reads them: running totals
 * (resolved with money held), partial indexes (escalated, expiring) or a bounded window of rows
 * (uncertainty, poison), never a scan of every case. Called with the caller's permission checked.
 */
async function readFigures(
  db: Db,
  rule: FigureRule,
  now: Date,
  flags: () => Promise<Awaited<ReturnType<typeof caseFlagFigures>>>,
): Promise<AlertFigures> {
  const since = new Date(now.getTime() - rule.windowMinutes * 60_000);
  switch (rule.kind) {
    case "escalated_overdue": {
      const { escalatedOpen } = await flags();
      return { count: escalatedOpen, held: [] };
    }
    case "resolved_money_held": {
      const { holdOpen } = await flags();
      return {
        count: holdOpen.reduce((sum, m) => sum + m.count, 0),
        held: holdOpen.map((m) => ({ currency: m.currency, micros: m.micros })),
      };
    }
    case "outputs_expiring": {
      const expiring = await outputsExpiringSoon(db, now);
      return { count: expiring.count, held: expiring.held };
    }
    case "uncertainty_growth":
      return fromMoneyRows(
        await sqlRows<Money>(
          db,
          Prisma.sql`
          SELECT currency, count(*) AS n, coalesce(sum(held_micros), 0)::bigint AS held FROM cases
          WHERE stage = 'submission_uncertain' AND state <> 'resolved' AND opened_at >= ${since}
          GROUP BY currency`,
        ),
      );
    case "suspected_duplicates": {
      const rows = await sqlRows<{ n: bigint }>(
        db,
        Prisma.sql`SELECT count(*) AS n FROM suspected_duplicates WHERE NOT withdrawn`,
      );
      return { count: Number(rows[0]?.n ?? 0), held: [] };
    }
    case "duplicate_outputs": {
      const rows = await sqlRows<{ n: bigint }>(
        db,
        Prisma.sql`SELECT count(*) AS n FROM output_duplicates WHERE detected_at >= ${since}`,
      );
      return { count: Number(rows[0]?.n ?? 0), held: [] };
    }
    case "poison_actions": {
      const rows = await sqlRows<{ n: bigint }>(
        db,
        Prisma.sql`SELECT count(*) AS n FROM audit_events WHERE kind = 'poison_parked' AND created_at >= ${since}`,
      );
      return { count: Number(rows[0]?.n ?? 0), held: [] };
    }
    case "provider_error_rate": {
      // Status checks only (the answers a claim records), by the case's provider, in the window.
      const rows = await sqlRows<{ provider: string; checks: bigint; errors: bigint }>(
        db,
        Prisma.sql`
        SELECT c.provider, count(*) AS checks, count(*) FILTER (WHERE o.kind = 'unknown') AS errors
        FROM provider_observations o JOIN cases c ON c.id = o.case_id
        WHERE o.observed_at >= ${since} AND o.action_id IS NOT NULL
          AND o.kind IN ('running', 'completed', 'failed', 'not_found', 'unknown')
        GROUP BY c.provider ORDER BY c.provider`,
      );
      const providers = rows.map((r) => ({ provider: r.provider, checks: Number(r.checks), errors: Number(r.errors) }));
      return { count: providers.reduce((sum, p) => sum + p.errors, 0), held: [], providers };
    }
    case "charged_after_release": {
      const open = await openLateChargeFigures(db);
      return {
        count: open.reduce((sum, m) => sum + m.count, 0),
        held: open.map(({ currency, micros }) => ({ currency, micros })),
      };
    }
    case "unexplained_charges": {
      // Decision 074: every charge no operation explains, and its money per currency across providers.
      const figures = await unexplainedFigures(db);
      const byCurrency = new Map<string, bigint>();
      for (const m of figures.money) byCurrency.set(m.currency, (byCurrency.get(m.currency) ?? 0n) + BigInt(m.micros));
      return {
        count: figures.byProvider.reduce((sum, p) => sum + p.count, 0),
        held: [...byCurrency].map(([currency, micros]) => ({ currency, micros: toMicrosTotal(micros) })),
      };
    }
    case "provider_paused": {
      // The breaker's pauses running at the round's `now` (decisions 037, 070): of a provider, or of
      // one producer at it. A person's pause is that person's act, not news to alert anyone about.
      const rows = await sqlRows<{ n: bigint }>(
        db,
        Prisma.sql`SELECT count(*) AS n FROM pauses
                   WHERE cause = 'breaker' AND resumed_at IS NULL AND until > ${now}`,
      );
      return { count: Number(rows[0]?.n ?? 0), held: [] };
    }
    case "producer_not_told":
      return { count: await producerNotToldCount(db), held: [] };
    case "worker_silence": {
      const rows = await sqlRows<{ last: Date | null }>(
        db,
        Prisma.sql`SELECT max(last_tick_at) AS last FROM worker_heartbeats`,
      );
      const last = rows[0]?.last ?? null;
      return { count: 0, held: [], lastTickAt: last ? last.toISOString() : null };
    }
  }
}
