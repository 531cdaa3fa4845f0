import { describe, expect, it } from "vitest";
import { inProducerScope, scopeFromColumn, withinScope } from "./producer-scope";

describe("producer scope", () => {
  it("reads an empty column as every producer", () => {
    expect(scopeFromColumn([])).toBeNull();
    expect(scopeFromColumn(null)).toBeNull();
    expect(scopeFromColumn(["shop-a"])).toEqual(["shop-a"]);
  });

  it("admits every producer without a scope, and only its own with one", () => {
    expect(inProducerScope(null, "shop-b")).toBe(true);
    expect(inProducerScope(["shop-a"], "shop-a")).toBe(true);
    expect(inProducerScope(["shop-a"], "shop-b")).toBe(false);
  });

  it("narrows what a read asks for to the scope; another producer's figures are none, not every one", () => {
    expect(withinScope(null, null)).toBeNull();
    expect(withinScope(null, ["shop-b"])).toEqual(["shop-b"]);
    expect(withinScope(["shop-a", "shop-c"], null)).toEqual(["shop-a", "shop-c"]);
    expect(withinScope(["shop-a", "shop-c"], ["shop-c", "shop-b"])).toEqual(["shop-c"]);
    expect(withinScope(["shop-a"], ["shop-b"])).toEqual([]);
  });
});
