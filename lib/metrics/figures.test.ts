import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { increment } from "./counters";
import { metricsContentType, renderFigures } from "./figures";
import { metricsRegistry } from "./registry";

describe("Prometheus exposition through prom-client", () => {
  it("writes HELP, TYPE and escaped labels", async () => {
    const text = await renderFigures(
      [{ name: "recovery_open_cases", samples: [{ labels: { stage: 'a"b' }, value: 3 }] }],
      [],
    );
    expect(text).toContain(
      '# HELP recovery_open_cases Open cases by stage\n# TYPE recovery_open_cases gauge\nrecovery_open_cases{stage="a\\"b"} 3\n',
    );
  });

  it("sets each scrape's figures whole: a stage that emptied disappears, a count is not added to the last one", async () => {
    await renderFigures(
      [
        { name: "recovery_open_cases", samples: [{ labels: { stage: "polling" }, value: 2 }] },
        { name: "recovery_claims_recorded_total", samples: [{ value: 5 }] },
      ],
      [],
    );
    const text = await renderFigures([{ name: "recovery_claims_recorded_total", samples: [{ value: 7 }] }], []);
    expect(text).not.toContain("recovery_open_cases{");
    expect(text).toContain("# TYPE recovery_claims_recorded_total counter\nrecovery_claims_recorded_total 7\n");
  });

  it("counts review latency into the histogram's buckets, and shows an empty histogram as zeros", async () => {
    expect(await renderFigures([], [])).toContain("recovery_review_latency_seconds_count 0\n");
    const text = await renderFigures([], [30, 400, 5 * 24 * 3600]);
    expect(text).toContain("# TYPE recovery_review_latency_seconds histogram\n");
    expect(text).toContain('recovery_review_latency_seconds_bucket{le="60"} 1\n');
    expect(text).toContain('recovery_review_latency_seconds_bucket{le="900"} 2\n');
    expect(text).toContain('recovery_review_latency_seconds_bucket{le="259200"} 2\n');
    expect(text).toContain('recovery_review_latency_seconds_bucket{le="+Inf"} 3\n');
    expect(text).toContain(`recovery_review_latency_seconds_sum ${30 + 400 + 5 * 24 * 3600}\n`);
    expect(text).toContain("recovery_review_latency_seconds_count 3\n");
  });

  it("renders the process's counters from the same registry, in prom-client's content type", async () => {
    increment("recovery_storage_refusals_total", { kind: "EACCES" });
    const text = await renderFigures([], []);
    expect(text).toMatch(
      /# TYPE recovery_storage_refusals_total counter\nrecovery_storage_refusals_total\{kind="EACCES"\} \d+\n/,
    );
    expect(metricsContentType()).toBe(Registry.PROMETHEUS_CONTENT_TYPE);
    expect(metricsRegistry().getSingleMetric("recovery_storage_refusals_total")?.get).toBeTypeOf("function");
  });
});
