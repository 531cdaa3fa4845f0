import { describe, expect, it } from "vitest";
import { resolveByteRange } from "./byte-range";

describe("resolveByteRange", () => {
  it("reads a first-last range, an open end and a suffix, clipped to the file", () => {
    expect(resolveByteRange("bytes=0-9", 100)).toEqual({ kind: "part", start: 0, end: 9 });
    expect(resolveByteRange("bytes=90-200", 100)).toEqual({ kind: "part", start: 90, end: 99 });
    expect(resolveByteRange("bytes=50-", 100)).toEqual({ kind: "part", start: 50, end: 99 });
    expect(resolveByteRange("bytes=-10", 100)).toEqual({ kind: "part", start: 90, end: 99 });
    expect(resolveByteRange("bytes=-500", 100)).toEqual({ kind: "part", start: 0, end: 99 });
  });

  it("is unsatisfiable past the end of the file, or for an empty suffix", () => {
    expect(resolveByteRange("bytes=100-", 100)).toEqual({ kind: "unsatisfiable" });
    expect(resolveByteRange("bytes=100-120", 100)).toEqual({ kind: "unsatisfiable" });
    expect(resolveByteRange("bytes=-0", 100)).toEqual({ kind: "unsatisfiable" });
    expect(resolveByteRange("bytes=0-", 0)).toEqual({ kind: "unsatisfiable" });
  });

  it("serves the whole file for no range, another unit, several ranges, nonsense, or If-Range", () => {
    for (const header of [null, "items=0-1", "bytes=0-1,5-6", "bytes=abc", "bytes=-", "bytes=9-3"]) {
      expect(resolveByteRange(header, 100)).toEqual({ kind: "whole" });
    }
    expect(resolveByteRange("bytes=0-9", 100, '"an-etag"')).toEqual({ kind: "whole" });
  });
});
