import { describe, expect, it } from "vitest";
import { providerJobPage } from "./job-page";
import { replicatePredictionPage } from "./replicate/job-page";

describe("a provider job's own page", () => {
  it("is Replicate's prediction page, as its API's urls.web gives it", () => {
    expect(replicatePredictionPage("cky59275mdrm80cpw83rcn3ej0")).toBe(
      "https://replicate.com/p/cky59275mdrm80cpw83rcn3ej0",
    );
    expect(providerJobPage({ provider: "replicate", providerJobId: "abc123", mode: "live" })).toEqual({
      url: "https://replicate.com/p/abc123",
    });
  });

  it("keeps a hostile ID inside its path segment", () => {
    expect(replicatePredictionPage("../../evil?x=1#y")).toBe("https://replicate.com/p/..%2F..%2Fevil%3Fx%3D1%23y");
  });

  it("is none for fal, whose documentation names no per-request page, and says so", () => {
    const page = providerJobPage({ provider: "fal", providerJobId: "80e732af-660e-45cd", mode: "live" });
    expect(page).toEqual({ url: null, why: "fal has no page for one request" });
    expect(providerJobPage({ provider: "runway", providerJobId: "d2e3d1f4", mode: "live" })).toEqual({
      url: null,
      why: "Runway has no page for one task",
    });
    expect(
      providerJobPage({
        provider: "veo",
        providerJobId: "models/veo-3.1-generate-preview/operations/k3",
        mode: "live",
      }),
    ).toEqual({ url: null, why: "Veo has no page for one operation" });
    expect(providerJobPage({ provider: "luma", providerJobId: "7c1c7c6e", mode: "live" })).toEqual({
      url: null,
      why: "Luma has no page for one generation",
    });
  });

  it("is none for a simulated job (whatever provider it imitates) or a provider it does not know", () => {
    expect(providerJobPage({ provider: "replicate", providerJobId: "abc123", mode: "simulator" })).toEqual({
      url: null,
      why: "simulated job: no provider page",
    });
    expect(providerJobPage({ provider: "runway", providerJobId: "abc123", mode: "live" }).url).toBeNull();
  });
});
