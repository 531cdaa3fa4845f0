import { beforeAll, describe, expect, it } from "vitest";
import * as metricsRoute from "@/app/api/metrics/route";
import { foldStatDeltas } from "@/lib/db/stat-figures";
import type { Stage } from "@/lib/domain/stages";
import { increment } from "@/lib/metrics/counters";
import { type Family, metricsContentType } from "@/lib/metrics/figures";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { approveCase } from "@/lib/services/case/approve-case";
import { parkCase } from "@/lib/services/case/park-case";
import { resolveHold } from "@/lib/services/hold/resolve-hold";
import { metricsSnapshot } from "@/lib/services/overview/metrics-snapshot";
import { makeUser, parkInput, producer } from "./fixtures";
import { overviewByScan } from "./helpers/figures-by-scan";
import { openTestDb } from "./setup/test-db";

const { db } = openTestDb();

beforeAll(() => {
  process.env.METRICS_TOKEN = "metrics-secret-token";
});

const scrape = (token?: string) =>
  metricsRoute.GET(
    new Request("http://localhost/api/metrics", { headers: token ? { authorization: `Bearer ${token}` } : {} }),
  );

describe("GET /api/metrics", () => {
  it("is refused without the configured token, in the JSON error shape", async () => {
    const response = await scrape();
    expect(response.status).toBe(401);
    expect((await response.json()).error.code).toBe("unauthenticated");
    expect((await scrape("wrong")).status).toBe(401);
  });

  it("reports open cases, oldest age and money on hold per stage, and review latency", async () => {
    const shop = producer("metrics-shop");
    const reviewer = await makeUser(db, ["reviewer"]);
    await parkCase(db, shop, parkInput("submission_uncertain"));
    const { caseId } = await parkCase(
      db,
      shop,
      parkInput("polling", { hold: { holdId: "m-1", amountMicros: 250_000, currency: "EUR" } }),
    );
    await approveCase(db, reviewer, caseId, { action: "resume_poll", evidence: "ok" });
    increment("recovery_lost_claims_total");
    const response = await scrape("metrics-secret-token");
    expect(response.headers.get("content-type")).toContain("text/plain");
    expect(response.headers.get("content-type")).toBe(metricsContentType());
    const text = await response.text();
    expect(text).toContain('recovery_open_cases{stage="submission_uncertain"} 1');
    expect(text).toContain('recovery_open_cases{stage="polling"} 1');
    expect(text).toContain('recovery_money_on_hold_micros{currency="EUR",stage="polling"} 250000');
    expect(text).toContain("recovery_unresolved_uncertain_submissions 1");
    expect(text).toContain("recovery_review_latency_seconds_count 1");
    expect(text).toMatch(/recovery_lost_claims_total 1/);
    expect(text).toMatch(/# TYPE recovery_review_latency_seconds histogram/);
  });
});

/** Each sample of a family as its label values followed by its value, in a stable order. */
function samplesOf(families: Family[], name: string): (string | number)[][] {
  const family = families.find((f) => f.name === name);
  return (family?.samples ?? []).map((s) => [...Object.values(s.labels ?? {}), s.value]).sort();
}

/** The figures as the metrics computed them before the running totals: full scans of the rows. */
async function metricsByScan(now: Date): Promise<Record<string, (string | number)[][]>> {
  const scan = await overviewByScan(db, now, now);
  const events = await db.$queryRaw<{ kind: string; n: bigint }[]>`
    SELECT CASE WHEN kind = 'recovery_unresolved' AND before->>'stage' = 'delivery' THEN 'delivery_failure' ELSE kind END AS kind,
           count(*) AS n
    FROM audit_events WHERE kind IN ('claimed', 'lease_rescued', 'recovery_unresolved') GROUP BY 1`;
  const event = (kind: string) => [[Number(events.find((e) => e.kind === kind)?.n ?? 0)]];
  const uncertain = scan.stages.find((s) => s.stage === "submission_uncertain");
  return {
    recovery_open_cases: scan.stages.map((s) => [s.stage, Number(s.open)]).sort(),
    recovery_oldest_case_age_seconds: scan.stages
      .map((s) => [s.stage, Math.floor((now.getTime() - s.oldest.getTime()) / 1000)])
      .sort(),
    recovery_money_on_hold_micros: scan.money.map((m) => [m.currency, m.stage, Number(m.held)]).sort(),
    recovery_unresolved_uncertain_submissions: [[Number(uncertain?.open ?? 0)]],
    recovery_claims_recorded_total: event("claimed"),
    recovery_lease_rescues_total: event("lease_rescued"),
    recovery_delivery_failures_total: event("delivery_failure"),
  };
}

async function expectMetricsMatchScan(now: Date) {
  const families = await metricsSnapshot(db, now);
  const expected = await metricsByScan(now);
  for (const [name, samples] of Object.entries(expected))
    expect([name, samplesOf(families, name)]).toEqual([name, samples]);
  return expected;
}

describe("metrics read from running totals and indexes", () => {
  it("equal what full scans of the rows say, through parks, decisions, settlements and folds", async () => {
    const shop = producer("metrics-scan-shop");
    const reviewer = await makeUser(db, ["reviewer"]);
    const finance = await makeUser(db, ["finance"]);
    const stages: Stage[] = ["submission_uncertain", "polling", "delivery", "generation_failed"];
    const currencies = ["USD", "EUR", "JPY"];
    const parked: { caseId: string; holdRef: string; stage: Stage }[] = [];
    for (let i = 0; i < 10; i++) {
      const stage = stages[i % 4] as Stage;
      const input = parkInput(stage);
      const { caseId } = await parkCase(db, shop, {
        ...input,
        hold: { ...input.hold, amountMicros: 7_000 * (i + 1), currency: currencies[i % 3] as string },
      });
      const hold = await db.hold.findFirstOrThrow({ where: { caseId } });
      parked.push({ caseId, holdRef: hold.id, stage });
      await db.$executeRaw`UPDATE cases SET opened_at = now() - ${`${i * 7} hours`}::interval WHERE id = ${caseId}::uuid`;
    }
    const now = new Date();
    await expectMetricsMatchScan(now);

    const of = (stage: Stage) => parked.filter((p) => p.stage === stage);
    await approveCase(db, reviewer, of("polling")[0]?.caseId ?? "", { action: "resume_poll", evidence: "resume" });
    const failed = of("generation_failed")[0];
    await acceptFailure(db, reviewer, failed?.caseId ?? "", { evidence: "content policy" });
    await resolveHold(db, finance, failed?.holdRef ?? "", { kind: "release", note: "no charge", evidence: "usage" });
    const settle = { kind: "settle" as const, chargeMicros: 3_000, note: "invoice", evidence: "usage" };
    await resolveHold(db, finance, of("delivery")[0]?.holdRef ?? "", settle);
    // The oldest open case of its stage, closed by hand as an operator's SQL would.
    await db.$executeRaw`UPDATE cases SET state = 'resolved' WHERE id = ${of("submission_uncertain").at(-1)?.caseId ?? ""}::uuid`;
    await db.$executeRaw`
      INSERT INTO audit_events (actor_kind, actor_label, kind, before)
      VALUES ('worker', 'w', 'claimed', NULL), ('worker', 'w', 'claimed', NULL), ('system', 's', 'lease_rescued', NULL),
             ('worker', 'w', 'recovery_unresolved', '{"stage": "delivery"}'),
             ('worker', 'w', 'recovery_unresolved', '{"stage": "polling"}'),
             ('worker', 'w', 'recovery_unresolved', NULL)`;
    const later = new Date(now.getTime() + 90_000);
    await expectMetricsMatchScan(later);
    await foldStatDeltas(db);
    const expected = await expectMetricsMatchScan(later);
    // The comparison saw every kind of figure, not empty lists.
    expect(expected.recovery_open_cases?.length).toBe(4);
    expect(expected.recovery_money_on_hold_micros?.length).toBeGreaterThan(3);
    expect(expected.recovery_delivery_failures_total).toEqual([[1]]);
  });
});
