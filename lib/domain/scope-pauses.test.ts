import { describe, expect, it } from "vitest";
import { pauseCovering, pauseKeysOf, pauseNeedsEveryProducer } from "./scope-pauses";

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

  it("lets only producer pauses be set by a person limited to some producers", () => {
    expect(pauseNeedsEveryProducer("producer")).toBe(false);
    expect(pauseNeedsEveryProducer("provider")).toBe(true);
    expect(pauseNeedsEveryProducer("model")).toBe(true);
  });
});
