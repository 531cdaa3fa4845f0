import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson, isFingerprint, requestFingerprint } from "./fingerprint";

describe("canonicalJson", () => {
  it("sorts keys at every level and drops whitespace", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: true, y: null }], c: "x" } })).toBe(
      '{"a":{"c":"x","d":[3,{"y":null,"z":true}]},"b":1}',
    );
  });

  it("gives the same text however the object was built", () => {
    const built: Record<string, unknown> = Object.create(null);
    built.model = "m";
    built.duration = 10;
    expect(canonicalJson(built)).toBe(canonicalJson({ duration: 10, model: "m" }));
  });

  it("treats undefined properties as absent and normalises -0", () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe('{"a":1}');
    expect(canonicalJson(-0)).toBe("0");
  });

  it("escapes strings and keys as JSON", () => {
    expect(canonicalJson({ 'k"': 'line\nbreak "q" é' })).toBe('{"k\\"":"line\\nbreak \\"q\\" é"}');
  });

  it.each([
    ["NaN", Number.NaN],
    ["Infinity", { a: Number.POSITIVE_INFINITY }],
    ["-Infinity", [Number.NEGATIVE_INFINITY]],
    ["bigint", 1n],
    ["function", () => 1],
    ["symbol", Symbol("s")],
    ["undefined", undefined],
    ["undefined array item", [1, undefined]],
    ["Date", new Date(0)],
    ["Map", new Map()],
    ["class instance", new (class Thing {})()],
  ])("refuses %s", (_name, value) => {
    expect(() => canonicalJson(value)).toThrow(expect.objectContaining({ code: "invalid_input" }));
  });

  it("refuses cycles but accepts shared references", () => {
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(expect.objectContaining({ code: "invalid_input" }));
  });
});

describe("requestFingerprint", () => {
  it("is sha256 of the canonical text", () => {
    const expected = createHash("sha256").update('{"a":1,"b":[true]}').digest("hex");
    expect(requestFingerprint({ b: [true], a: 1 })).toBe(`sha256:${expected}`);
  });

  it("differs when any value differs and ignores key order", () => {
    const base = { model: "video-1", prompt: "a cat", seconds: 10 };
    expect(requestFingerprint({ seconds: 10, prompt: "a cat", model: "video-1" })).toBe(requestFingerprint(base));
    expect(requestFingerprint({ ...base, seconds: 11 })).not.toBe(requestFingerprint(base));
    expect(requestFingerprint({ ...base, seconds: "10" })).not.toBe(requestFingerprint(base));
  });

  it("produces values isFingerprint accepts", () => {
    expect(isFingerprint(requestFingerprint({}))).toBe(true);
  });
});

describe("isFingerprint", () => {
  it.each([
    [`sha256:${"a".repeat(64)}`, true],
    [`sha256:${"A".repeat(64)}`, false],
    [`sha256:${"a".repeat(63)}`, false],
    [`sha256:${"a".repeat(65)}`, false],
    [`md5:${"a".repeat(64)}`, false],
    ["a".repeat(64), false],
    [` sha256:${"a".repeat(64)}`, false],
    [42, false],
  ])("%j -> %s", (value, expected) => {
    expect(isFingerprint(value)).toBe(expected);
  });
});
