import type { Db } from "@/lib/db/client";
import { allHours, figureRows, foldWhenDue } from "@/lib/db/stat-figures";
import { type Family, renderFigures } from "@/lib/metrics/figures";
import { caseFlagFigures } from "../case/case-flags";
import { openLateChargeFigures } from "../hold/late-charge-figures";
import { producerNotToldCount } from "../notification/producer-not-told";
import { unexplainedFigures } from "../usage/unexplained-figures";
import { vaultFamilies } from "../vault/vault-figures";

/** One scrape: the figures and review latencies read now, rendered with the process's counters. */
export async function scrapeMetrics(db: Db, now = new Date()): Promise<string> {
  const [families, latencies] = await Promise.all([metricsSnapshot(db, now), reviewLatencySeconds(db)]);
  return renderFigures(families, latencies);
}

/**
 * The operator's figures (DESIGN section 10) that the database holds. Open cases and money held come
 * from the running totals (stat-figures.ts) and the oldest open case from the open cases' index, so
 * a scrape does not count the cases table; the counters read their rows through the indexes there
 * are, and only figures no index or total covers (observations, outbox, and the review latencies
 * below) scan.
 */
export async function metricsSnapshot(db: Db, now = new Date()): Promise<Family[]> {
  await foldWhenDue(db);
  const [stages, money, events, observations, outbox, flags, escalations] = await Promise.all([
    db.$queryRaw<{ stage: string; open: bigint; oldest: Date | null }[]>`
      SELECT t.stage::text, t.open,
             (SELECT min(c.opened_at) FROM cases c WHERE c.stage = t.stage AND c.state <> 'resolved') AS oldest
      FROM (SELECT stage, sum(count)::bigint AS open FROM ${figureRows("open_cases", allHours)} f GROUP BY stage) t
      WHERE t.open > 0 ORDER BY t.stage`,
    // Held amounts are never negative (cases_held_not_negative), so a positive sum is a group that holds money.
    db.$queryRaw<{ stage: string; currency: string; held: bigint }[]>`
      SELECT stage::text, currency, sum(micros)::bigint AS held FROM ${figureRows("case_held")} f
      GROUP BY stage, currency HAVING sum(micros) > 0 ORDER BY stage, currency`,
    // One count per kind, so claims and rescues are counted in the (kind, created_at) index alone.
    db.$queryRaw<{ claimed: bigint; lease_rescued: bigint; delivery_failure: bigint }[]>`
      SELECT (SELECT count(*) FROM audit_events WHERE kind = 'claimed') AS claimed,
             (SELECT count(*) FROM audit_events WHERE kind = 'lease_rescued') AS lease_rescued,
             (SELECT count(*) FROM audit_events
              WHERE kind = 'recovery_unresolved' AND before->>'stage' = 'delivery') AS delivery_failure`,
    db.$queryRaw<{ kind: string; n: bigint }[]>`
      SELECT kind, count(*) AS n FROM provider_observations WHERE kind IN ('unknown', 'not_found') GROUP BY kind`,
    db.$queryRaw<{ failed: bigint; pending: bigint }[]>`
      SELECT count(*) FILTER (WHERE last_error IS NOT NULL) AS failed,
             count(*) FILTER (WHERE delivered_at IS NULL AND give_up_at IS NULL) AS pending FROM notification_outbox`,
    caseFlagFigures(db),
    db.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM audit_events WHERE kind = 'deadline_escalated'`,
  ]);
  const event = (kind: "claimed" | "lease_rescued" | "delivery_failure") => Number(events[0]?.[kind] ?? 0);
  const one = (value: number) => [{ value }];
  const families: Family[] = [
    {
      name: "recovery_open_cases",
      samples: stages.map((s) => ({ labels: { stage: s.stage }, value: Number(s.open) })),
    },
    {
      name: "recovery_oldest_case_age_seconds",
      samples: stages.map((s) => ({
        labels: { stage: s.stage },
        value: s.oldest ? Math.floor((now.getTime() - s.oldest.getTime()) / 1000) : 0,
      })),
    },
    {
      name: "recovery_money_on_hold_micros",
      samples: money.map((m) => ({ labels: { currency: m.currency, stage: m.stage }, value: Number(m.held) })),
    },
    {
      name: "recovery_unresolved_uncertain_submissions",
      samples: one(Number(stages.find((s) => s.stage === "submission_uncertain")?.open ?? 0)),
    },
    { name: "recovery_claims_recorded_total", samples: one(event("claimed")) },
    { name: "recovery_lease_rescues_total", samples: one(event("lease_rescued")) },
    { name: "recovery_delivery_failures_total", samples: one(event("delivery_failure")) },
    {
      name: "recovery_provider_observations_without_answer_total",
      samples: observations.map((o) => ({ labels: { kind: o.kind }, value: Number(o.n) })),
    },
    { name: "recovery_notifications_failing", samples: one(Number(outbox[0]?.failed ?? 0)) },
    { name: "recovery_notifications_pending", samples: one(Number(outbox[0]?.pending ?? 0)) },
    {
      name: "recovery_resolved_hold_open_cases",
      samples: flags.holdOpen.map((h) => ({ labels: { currency: h.currency }, value: h.count })),
    },
    {
      name: "recovery_resolved_hold_open_micros",
      samples: flags.holdOpen.map((h) => ({ labels: { currency: h.currency }, value: Number(h.micros) })),
    },
    { name: "recovery_escalated_open_cases", samples: one(flags.escalatedOpen) },
    { name: "recovery_deadline_escalations_total", samples: one(Number(escalations[0]?.n ?? 0)) },
  ];
  families.push(await suspectedDuplicatesFamily(db), await breakerFamily(db, now), ...(await lateChargeFamilies(db)));
  families.push({ name: "recovery_producer_not_told_cases", samples: one(await producerNotToldCount(db)) });
  // Decision 072: every pair recorded, retention-removed ones aside (the table only grows otherwise).
  const pairs = await db.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM output_duplicates`;
  families.push({ name: "recovery_duplicate_outputs_total", samples: one(Number(pairs[0]?.n ?? 0)) });
  families.push(...(await vaultFamilies(db)));
  // Decision 074: what finance has still to explain, by provider (and its money by currency).
  const unexplained = await unexplainedFigures(db);
  families.push(
    {
      name: "recovery_unexplained_charges",
      samples: unexplained.byProvider.map((p) => ({ labels: { provider: p.provider }, value: p.count })),
    },
    {
      name: "recovery_unexplained_charges_micros",
      samples: unexplained.money.map((m) => ({
        labels: { provider: m.provider, currency: m.currency },
        value: Number(m.micros),
      })),
    },
  );
  return families;
}

/**
 * Each configured provider's unknown-outcome breaker (producer ""), and each producer paused at a
 * provider on its own outcomes while its pause is open: 1 while it refuses new permits, else 0
 * (decisions 037, 070; the breaker's pauses only).
 */
async function breakerFamily(db: Db, now: Date): Promise<Family> {
  const [whole, pauses] = await Promise.all([
    db.providerBreaker.findMany({ select: { provider: true } }),
    db.pause.findMany({
      where: { cause: "breaker", resumedAt: null },
      select: { kind: true, value: true, atProvider: true, until: true },
    }),
  ]);
  const open = (until: Date | null) => (until && until > now ? 1 : 0);
  const ofProvider = (provider: string) => pauses.find((p) => p.kind === "provider" && p.value === provider);
  return {
    name: "recovery_provider_paused",
    samples: [
      ...whole.map((r) => ({
        labels: { provider: r.provider, producer: "" },
        value: open(ofProvider(r.provider)?.until ?? null),
      })),
      ...pauses
        .filter((p) => p.kind === "producer")
        .map((p) => ({ labels: { provider: p.atProvider, producer: p.value }, value: open(p.until) })),
    ],
  };
}

/** DESIGN rule 18: charges after release that finance has not decided, counted and summed per currency. */
async function lateChargeFamilies(db: Db): Promise<Family[]> {
  const open = await openLateChargeFigures(db);
  return [
    {
      name: "recovery_charged_after_release_open",
      samples: open.map((m) => ({ labels: { currency: m.currency }, value: m.count })),
    },
    {
      name: "recovery_charged_after_release_open_micros",
      samples: open.map((m) => ({ labels: { currency: m.currency }, value: Number(m.micros) })),
    },
  ];
}

/** Time from each case episode's opening to its first decision: the review-latency histogram's observations. */
async function reviewLatencySeconds(db: Db): Promise<number[]> {
  const rows = await db.$queryRaw<{ seconds: number }[]>`
    SELECT extract(epoch FROM min(d.created_at) - min(c.opened_at))::float8 AS seconds
    FROM decisions d JOIN cases c ON c.id = d.case_id AND c.episode = d.episode GROUP BY d.case_id, d.episode`;
  return rows.map((row) => row.seconds);
}

/** Rule 14: replacements whose original job turned up afterwards, and how many could be withdrawn. */
async function suspectedDuplicatesFamily(db: Db): Promise<Family> {
  const rows = await db.$queryRaw<{ withdrawn: boolean; n: bigint }[]>`
    SELECT withdrawn, count(*) AS n FROM suspected_duplicates GROUP BY withdrawn`;
  return {
    name: "recovery_suspected_duplicates_total",
    samples: [false, true].map((withdrawn) => ({
      labels: { withdrawn: String(withdrawn) },
      value: Number(rows.find((r) => r.withdrawn === withdrawn)?.n ?? 0),
    })),
  };
}
