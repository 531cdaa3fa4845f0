import { describe, expect, it } from "vitest";
import { containsUnstorable, inspectJson, MAX_JSON_DEPTH } from "./nul";

describe("what the door refuses in JSON", () => {
  it("finds NUL characters in strings, keys and nested values", () => {
    expect(containsUnstorable("a\u0000b")).toBe(true);
    expect(containsUnstorable({ ok: ["x", { deep: "\u0000" }] })).toBe(true);
    expect(containsUnstorable({ "k\u0000": 1 })).toBe(true);
    expect(containsUnstorable({ ok: ["x", 1, null, { deep: "fine" }] })).toBe(false);
  });

  it("finds lone UTF-16 surrogates in strings and keys, but lets well-formed pairs through", () => {
    expect(containsUnstorable("a\uD800b")).toBe(true);
    expect(containsUnstorable("trailing \uDC00")).toBe(true);
    expect(containsUnstorable("reversed \uDC00\uD800")).toBe(true);
    expect(containsUnstorable({ nested: [{ deep: "\uDBFF" }] })).toBe(true);
    expect(containsUnstorable({ "k\uDFFF": 1 })).toBe(true);
    expect(containsUnstorable({ emoji: "🎬 \uD83C\uDFAC", ключ: "日本" })).toBe(false);
  });

  it("reports nesting deeper than the limit without recursing (no stack overflow)", () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(inspectJson(deep).tooDeep).toBe(true);
    let fine: unknown = "leaf";
    for (let i = 0; i < MAX_JSON_DEPTH; i++) fine = { a: fine };
    expect(inspectJson(fine)).toEqual({ unstorable: false, tooDeep: false });
  });
});
