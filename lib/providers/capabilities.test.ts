import { describe, expect, it } from "vitest";
import { PROVIDER_CAPABILITIES, providerCapabilityView } from "./capabilities";
import { simulatorAdapters } from "./registry";

describe("provider capabilities in words", () => {
  it("are the adapters' own", () => {
    for (const adapter of Object.values(simulatorAdapters("http://127.0.0.1:4010"))) {
      expect(adapter.capabilities).toEqual(PROVIDER_CAPABILITIES[adapter.provider]);
    }
  });

  it("say that a provider without a job list needs billing evidence for 'no job exists'", () => {
    expect(providerCapabilityView("runway")).toEqual({
      provider: "runway",
      known: true,
      notes: [
        "no job list: a 'no job exists' verdict needs billing evidence",
        "outputs kept about 24 h after the provider answers",
      ],
    });
    expect(providerCapabilityView("veo")).toEqual({
      provider: "veo",
      known: true,
      notes: [
        "no job list: a 'no job exists' verdict needs billing evidence",
        "outputs kept about 48 h after the provider answers",
      ],
    });
    expect(providerCapabilityView("fal").notes).toContain("job list searched one model at a time");
    expect(providerCapabilityView("replicate").notes.join(" ")).not.toContain("billing");
    expect(providerCapabilityView("kling")).toMatchObject({ known: false });
  });

  it("say that Luma's list is searched by time, model and request, with no output lifetime stated", () => {
    expect(providerCapabilityView("luma")).toEqual({
      provider: "luma",
      known: true,
      notes: ["no client reference: jobs are matched by time, model and request"],
    });
  });
});
