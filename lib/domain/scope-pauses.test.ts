import { describe, expect, it } from "vitest";
import { pauseCovering, pauseKeysOf, pauseNeedsEveryProducer, pauseRefusalCode } from "./scope-pauses";

const target = { provider: "replicate", producer: "shop-a", model: "video-1" };

describe("scope pauses", () => {
  it("names the three keys that could pause a case or a send", () => {
    expect(pauseKeysOf(target)).toEqual([
      ["provider", "replicate"],
      ["producer", "shop-a"],
      ["model", "video-1"],
    ]);
  });

  it("finds the pause covering a target by kind and value, never by value alone", () => {
    const pauses = [
      { kind: "producer" as const, value: "replicate" },
      { kind: "model" as const, value: "video-1" },
    ];
    expect(pauseCovering(pauses, target)).toEqual({ kind: "model", value: "video-1" });
    expect(pauseCovering(pauses, { ...target, model: "video-2" })).toBeNull();
    expect(pauseCovering([], target)).toBeNull();
  });

  it("names a person's pause before the breaker's, and reads the breaker's only for sends (decision 070)", () => {
    const breaker = { kind: "provider" as const, value: "replicate", cause: "breaker" as const, atProvider: "" };
    const person = { kind: "model" as const, value: "video-1", cause: "person" as const, atProvider: "" };
    expect(pauseCovering([breaker, person], target)).toBe(person);
    expect(pauseCovering([breaker], target)).toBe(breaker);
    expect(pauseCovering([breaker], target, false)).toBeNull();
    // The breaker's pause of one producer holds at its provider only.
    const atFal = { kind: "producer" as const, value: "shop-a", cause: "breaker" as const, atProvider: "fal" };
    expect(pauseCovering([atFal], target)).toBeNull();
    expect(pauseCovering([atFal], { ...target, provider: "fal" })).toBe(atFal);
    expect(pauseRefusalCode("person")).toBe("sends_paused");
    expect(pauseRefusalCode("breaker")).toBe("provider_paused");
  });

  it("lets only producer pauses be set by a person limited to some producers", () => {
    expect(pauseNeedsEveryProducer("producer")).toBe(false);
    expect(pauseNeedsEveryProducer("provider")).toBe(true);
    expect(pauseNeedsEveryProducer("model")).toBe(true);
  });
});
