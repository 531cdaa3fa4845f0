import { describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/env";
import { LIVE_PROVIDER_KEYS, PROVIDER_NAMES, PROVIDERS, providerAdaptersFromEnv } from "@/lib/providers/registry";
import { ProviderConfigError } from "@/lib/providers/types";
import { SIMULATOR_PROVIDERS } from "@/verification/simulator/providers";

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

  it("takes every provider from its module: its key alone builds its adapter, in live mode and against the simulator", () => {
    for (const provider of PROVIDERS) {
      const live = providerAdaptersFromEnv({ PROVIDER_MODE: "live", [provider.liveKey]: "key-0" });
      expect(Object.keys(live)).toEqual([provider.name]);
      expect(live[provider.name]?.provider).toBe(provider.name);
      expect(live[provider.name]?.capabilities).toEqual(provider.capabilities);
      const sim = provider.simulatorAdapter("http://127.0.0.1:4010", {});
      expect(sim.provider).toBe(provider.name);
      expect(parseEnv({ DEMO: "1", [provider.liveKey]: "key-0" }) as Record<string, unknown>).toMatchObject({
        [provider.liveKey]: "key-0",
      });
    }
  });

  it("gives every provider its own name, key, settings and pace variable, and a simulator of its own", () => {
    const unique = (values: readonly string[]) => expect(new Set(values).size).toBe(values.length);
    unique(PROVIDER_NAMES);
    unique(LIVE_PROVIDER_KEYS);
    unique(PROVIDERS.map((provider) => provider.paceEnvVar));
    unique(PROVIDERS.flatMap((provider) => Object.keys(provider.env)));
    expect(Object.keys(SIMULATOR_PROVIDERS)).toEqual([...PROVIDER_NAMES]);
    for (const [name, simulator] of Object.entries(SIMULATOR_PROVIDERS)) expect(simulator.name).toBe(name);
  });
});
