import { describe, expect, it } from "vitest";
import { containsNul, inspectJson, MAX_JSON_DEPTH } from "./nul";

describe("what the door refuses in JSON", () => {
  it("finds NUL characters in strings, keys and nested values", () => {
    expect(containsNul("a\u0000b")).toBe(true);
    expect(containsNul({ ok: ["x", { deep: "\u0000" }] })).toBe(true);
    expect(containsNul({ "k\u0000": 1 })).toBe(true);
    expect(containsNul({ ok: ["x", 1, null, { deep: "fine" }] })).toBe(false);
  });

  it("reports nesting deeper than the limit without recursing (no stack overflow)", () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(inspectJson(deep).tooDeep).toBe(true);
    let fine: unknown = "leaf";
    for (let i = 0; i < MAX_JSON_DEPTH; i++) fine = { a: fine };
    expect(inspectJson(fine)).toEqual({ nul: false, tooDeep: false });
  });
});
