import { describe, expect, it } from "vitest";
import type { JobStatus } from "@/lib/providers/types";
import { earliestExpiry, withOutputExpiry } from "./output-expiry";

const now = new Date("2026-12-01T10:00:00.000Z");
const completed = (outputs: { url: string; expiresAt?: string }[]): JobStatus => ({
  kind: "completed",
  providerStatus: "succeeded",
  outputs,
  outputsRemoved: false,
});
const caps = { findByClientReference: false, listJobs: false, listJobsRequiresModel: false, noJobSettlingSeconds: 900 };

describe("output expiry", () => {
  it("keeps the provider's own expiry and fills the documented retention where none is given", () => {
    const status = withOutputExpiry(
      completed([{ url: "https://a/1", expiresAt: "2026-12-01T10:20:00.000Z" }, { url: "https://a/2" }]),
      { ...caps, outputRetentionSeconds: 3600 },
      now,
    );
    expect(status.kind === "completed" && status.outputs.map((o) => o.expiresAt)).toEqual([
      "2026-12-01T10:20:00.000Z",
      "2026-12-01T11:00:00.000Z",
    ]);
    expect(earliestExpiry(status)?.toISOString()).toBe("2026-12-01T10:20:00.000Z");
  });

  it("claims no expiry when neither the provider nor its docs give one", () => {
    const status = withOutputExpiry(completed([{ url: "https://a/1" }]), caps, now);
    expect(earliestExpiry(status)).toBeNull();
    expect(earliestExpiry({ kind: "running", providerStatus: "processing" })).toBeNull();
  });
});
