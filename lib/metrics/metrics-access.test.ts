import { describe, expect, it } from "vitest";
import { metricsAccess } from "./metrics-access";

describe("who may scrape the metrics", () => {
  const token = "metrics-secret-token";

  it("outside demo mode, nobody until METRICS_TOKEN is set", () => {
    expect(metricsAccess(null, { demo: false })).toBe("not_configured");
    expect(metricsAccess("Bearer anything", { demo: false })).toBe("not_configured");
  });

  it("in demo mode, anyone when no token is set", () => {
    expect(metricsAccess(null, { demo: true })).toBe("allowed");
  });

  it("with a token set, only its bearer, in either mode", () => {
    for (const demo of [false, true]) {
      expect(metricsAccess(`Bearer ${token}`, { token, demo })).toBe("allowed");
      expect(metricsAccess(`bearer   ${token}`, { token, demo })).toBe("allowed");
      expect(metricsAccess(null, { token, demo })).toBe("refused");
      expect(metricsAccess(`Bearer ${token}x`, { token, demo })).toBe("refused");
      expect(metricsAccess(token, { token, demo })).toBe("refused");
      expect(metricsAccess("Bearer ", { token, demo })).toBe("refused");
    }
  });
});
