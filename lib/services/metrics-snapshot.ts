import type { Db } from "@/lib/db/client";
import { COUNTER_HELP, counterSamples } from "@/lib/metrics/counters";
import type { Family } from "@/lib/metrics/exposition";
import { caseFlagFigures } from "./case-flags";
import { allHours, figureRows, foldWhenDue } from "./stat-figures";

const LATENCY_BUCKETS = [60, 300, 900, 3600, 4 * 3600, 24 * 3600, 3 * 24 * 3600];

/**
 * The operator's figures (DESIGN section 10) as Prometheus families. Open cases and money held come
 * from the running totals (stat-figures.ts) and the oldest open case from the open cases' index, so
 * a scrape does not count the cases table; the counters read their rows through the indexes there
 * are, and only figures no index or total covers (review latency, observations, outbox) scan.
 */
export async function metricsSnapshot(db: Db, now = new Date()): Promise<Family[]> {
  await foldWhenDue(db);
  const [stages, money, latency, events, observations, outbox, flags, escalations] = await Promise.all([
    db.$queryRaw<{ stage: string; open: bigint; oldest: Date | null }[]>`
      SELECT t.stage::text, t.open,
             (SELECT min(c.opened_at) FROM cases c WHERE c.stage = t.stage AND c.state <> 'resolved') AS oldest
      FROM (SELECT stage, sum(count)::bigint AS open FROM ${figureRows("open_cases", allHours)} f GROUP BY stage) t
      WHERE t.open > 0 ORDER BY t.stage`,
    // Held amounts are never negative (cases_held_not_negative), so a positive sum is a group that holds money.
    db.$queryRaw<{ stage: string; currency: string; held: bigint }[]>`
      SELECT stage::text, currency, sum(micros)::bigint AS held FROM ${figureRows("case_held")} f
      GROUP BY stage, currency HAVING sum(micros) > 0 ORDER BY stage, currency`,
    db.$queryRaw<{ seconds: number }[]>`
      SELECT extract(epoch FROM min(d.created_at) - min(c.opened_at))::float8 AS seconds
      FROM decisions d JOIN cases c ON c.id = d.case_id AND c.episode = d.episode GROUP BY d.case_id, d.episode`,
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
  const buckets = LATENCY_BUCKETS.map((le) => ({
    name: "recovery_review_latency_seconds_bucket",
    labels: { le: String(le) },
    value: latency.filter((l) => l.seconds <= le).length,
  }));
  const families: Family[] = [
    {
      name: "recovery_open_cases",
      type: "gauge",
      help: "Open cases by stage",
      samples: stages.map((s) => ({ name: "recovery_open_cases", labels: { stage: s.stage }, value: Number(s.open) })),
    },
    {
      name: "recovery_oldest_case_age_seconds",
      type: "gauge",
      help: "Age of the oldest open case by stage",
      samples: stages.map((s) => ({
        name: "recovery_oldest_case_age_seconds",
        labels: { stage: s.stage },
        value: s.oldest ? Math.floor((now.getTime() - s.oldest.getTime()) / 1000) : 0,
      })),
    },
    {
      name: "recovery_money_on_hold_micros",
      type: "gauge",
      help: "Money on hold in micro-units, by currency and stage",
      samples: money.map((m) => ({
        name: "recovery_money_on_hold_micros",
        labels: { currency: m.currency, stage: m.stage },
        value: Number(m.held),
      })),
    },
    {
      name: "recovery_unresolved_uncertain_submissions",
      type: "gauge",
      help: "Open submission_uncertain cases",
      samples: [
        {
          name: "recovery_unresolved_uncertain_submissions",
          value: Number(stages.find((s) => s.stage === "submission_uncertain")?.open ?? 0),
        },
      ],
    },
    {
      name: "recovery_review_latency_seconds",
      type: "histogram",
      help: "Time from a case opening to its first decision",
      samples: [
        ...buckets,
        { name: "recovery_review_latency_seconds_bucket", labels: { le: "+Inf" }, value: latency.length },
        {
          name: "recovery_review_latency_seconds_sum",
          value: Math.round(latency.reduce((sum, l) => sum + l.seconds, 0)),
        },
        { name: "recovery_review_latency_seconds_count", value: latency.length },
      ],
    },
    {
      name: "recovery_claims_recorded_total",
      type: "counter",
      help: "Claims recorded in the audit log",
      samples: [{ name: "recovery_claims_recorded_total", value: event("claimed") }],
    },
    {
      name: "recovery_lease_rescues_total",
      type: "counter",
      help: "Expired leases handed back",
      samples: [{ name: "recovery_lease_rescues_total", value: event("lease_rescued") }],
    },
    {
      name: "recovery_delivery_failures_total",
      type: "counter",
      help: "Delivery attempts that ended unresolved",
      samples: [{ name: "recovery_delivery_failures_total", value: event("delivery_failure") }],
    },
    {
      name: "recovery_provider_observations_without_answer_total",
      type: "counter",
      help: "Status checks recorded as unknown or not_found",
      samples: observations.map((o) => ({
        name: "recovery_provider_observations_without_answer_total",
        labels: { kind: o.kind },
        value: Number(o.n),
      })),
    },
    {
      name: "recovery_notifications_failing",
      type: "gauge",
      help: "Outbox messages whose last send failed",
      samples: [{ name: "recovery_notifications_failing", value: Number(outbox[0]?.failed ?? 0) }],
    },
    {
      name: "recovery_notifications_pending",
      type: "gauge",
      help: "Outbox messages not yet delivered",
      samples: [{ name: "recovery_notifications_pending", value: Number(outbox[0]?.pending ?? 0) }],
    },
    {
      name: "recovery_resolved_hold_open_cases",
      type: "gauge",
      help: "Resolved cases whose hold is still open (needs a finance decision), by currency",
      samples: flags.holdOpen.map((h) => ({
        name: "recovery_resolved_hold_open_cases",
        labels: { currency: h.currency },
        value: h.count,
      })),
    },
    {
      name: "recovery_resolved_hold_open_micros",
      type: "gauge",
      help: "Money still held on resolved cases in micro-units, by currency",
      samples: flags.holdOpen.map((h) => ({
        name: "recovery_resolved_hold_open_micros",
        labels: { currency: h.currency },
        value: h.micros,
      })),
    },
    {
      name: "recovery_escalated_open_cases",
      type: "gauge",
      help: "Open cases escalated because their deadline passed",
      samples: [{ name: "recovery_escalated_open_cases", value: flags.escalatedOpen }],
    },
    {
      name: "recovery_deadline_escalations_total",
      type: "counter",
      help: "Cases escalated by the deadline sweep",
      samples: [{ name: "recovery_deadline_escalations_total", value: Number(escalations[0]?.n ?? 0) }],
    },
  ];
  families.push(await suspectedDuplicatesFamily(db));
  for (const [name, help] of Object.entries(COUNTER_HELP)) {
    families.push({ name, type: "counter", help, samples: counterSamples().filter((s) => s.name === name) });
  }
  return families;
}

/** Rule 14: replacements whose original job turned up afterwards, and how many could be withdrawn. */
async function suspectedDuplicatesFamily(db: Db): Promise<Family> {
  const rows = await db.$queryRaw<{ withdrawn: boolean; n: bigint }[]>`
    SELECT withdrawn, count(*) AS n FROM suspected_duplicates GROUP BY withdrawn`;
  const name = "recovery_suspected_duplicates_total";
  return {
    name,
    type: "counter",
    help: "Authorised replacements whose original job turned up afterwards, by whether it was withdrawn",
    samples: [false, true].map((withdrawn) => ({
      name,
      labels: { withdrawn: String(withdrawn) },
      value: Number(rows.find((r) => r.withdrawn === withdrawn)?.n ?? 0),
    })),
  };
}
