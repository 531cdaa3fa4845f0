import { describe, expect, it } from "vitest";
import { providerAdaptersFromEnv } from "@/lib/providers/registry";
import { ProviderConfigError } from "@/lib/providers/types";

describe("provider adapters from configuration", () => {
  it("builds live mode with only the providers that have keys", () => {
    expect(Object.keys(providerAdaptersFromEnv({ PROVIDER_MODE: "live", REPLICATE_API_TOKEN: "r8" }))).toEqual([
      "replicate",
    ]);
    expect(Object.keys(providerAdaptersFromEnv({ PROVIDER_MODE: "live", FAL_KEY: "k" }))).toEqual(["fal"]);
    expect(Object.keys(providerAdaptersFromEnv({ PROVIDER_MODE: "live", RUNWAYML_API_SECRET: "key_0" }))).toEqual([
      "runway",
    ]);
    expect(Object.keys(providerAdaptersFromEnv({ PROVIDER_MODE: "live", GEMINI_API_KEY: "AIza0" }))).toEqual(["veo"]);
    expect(Object.keys(providerAdaptersFromEnv({ PROVIDER_MODE: "live", LUMAAI_API_KEY: "luma-0" }))).toEqual(["luma"]);
    const some = providerAdaptersFromEnv({ PROVIDER_MODE: "live", FAL_KEY: "k", RUNWAYML_API_SECRET: "key_0" });
    expect(Object.keys(some).sort()).toEqual(["fal", "runway"]);
    const others = providerAdaptersFromEnv({
      PROVIDER_MODE: "live",
      REPLICATE_API_TOKEN: "r8",
      GEMINI_API_KEY: "AIza0",
    });
    expect(Object.keys(others).sort()).toEqual(["replicate", "veo"]);
    expect(() => providerAdaptersFromEnv({ PROVIDER_MODE: "live" })).toThrow(ProviderConfigError);
  });

  it("has no quiet default: no mode, or the simulator without its URL, is refused", () => {
    expect(() => providerAdaptersFromEnv({})).toThrow(ProviderConfigError);
    expect(() => providerAdaptersFromEnv({ PROVIDER_MODE: "simulator" })).toThrow(/SIMULATOR_URL/);
    const sim = providerAdaptersFromEnv({ PROVIDER_MODE: "simulator", SIMULATOR_URL: "http://127.0.0.1:4010" });
    expect(Object.keys(sim).sort()).toEqual(["fal", "luma", "replicate", "runway", "veo"]);
  });
});
