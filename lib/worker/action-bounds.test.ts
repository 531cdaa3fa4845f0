import { describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/env";
import { actionBoundsFrom } from "./action-bounds";

const boundsOf = (raw: Record<string, string>) => {
  const env = parseEnv(raw);
  return actionBoundsFrom(env, env.WORKER_POLL_BASE_SECONDS);
};

describe("action bounds from the environment (DESIGN rule 19)", () => {
  it("default to twice each provider's documented longest run, with the attempts that time holds", () => {
    const bounds = boundsOf({});
    // Replicate times predictions out after 30 minutes of running; Veo answers within 6 minutes.
    expect(bounds.replicate).toEqual({ maxSeconds: 3600, maxAttempts: 121 });
    expect(bounds.veo).toEqual({ maxSeconds: 720, maxAttempts: 25 });
    // fal, Runway and Luma document no maximum: an hour's run is assumed (docs/providers.md).
    expect(bounds.fal).toEqual({ maxSeconds: 7200, maxAttempts: 241 });
  });

  it("are set per provider, and an attempts bound follows a configured time", () => {
    const bounds = boundsOf({
      REPLICATE_ACTION_MAX_ATTEMPTS: "7",
      FAL_ACTION_MAX_SECONDS: "600",
      WORKER_POLL_BASE_SECONDS: "60",
    });
    expect(bounds.replicate).toEqual({ maxSeconds: 3600, maxAttempts: 7 });
    expect(bounds.fal).toEqual({ maxSeconds: 600, maxAttempts: 11 });
    expect(bounds.runway).toEqual({ maxSeconds: 7200, maxAttempts: 121 });
  });

  it("refuse a bound that is not a whole number of at least 1, and read a blank as unset", () => {
    expect(() => parseEnv({ LUMA_ACTION_MAX_ATTEMPTS: "0" })).toThrow(/LUMA_ACTION_MAX_ATTEMPTS/);
    expect(() => parseEnv({ VEO_ACTION_MAX_SECONDS: "1.5" })).toThrow(/VEO_ACTION_MAX_SECONDS/);
    expect(boundsOf({ VEO_ACTION_MAX_SECONDS: "" }).veo.maxSeconds).toBe(720);
  });
});
