import { beforeAll, describe, expect, it } from "vitest";
import * as metricsRoute from "../../app/api/metrics/route";
import { increment } from "../../lib/metrics/counters";
import { approveCase } from "../../lib/services/approve-case";
import { parkCase } from "../../lib/services/park-case";
import { makeUser, parkInput, producer } from "./fixtures";
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
