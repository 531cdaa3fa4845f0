/**
 * The one byte range a client asked for with `Range: bytes=`, resolved against
 * the file's size (decision 071): a browser's video element seeks by asking for the part it needs.
 *
 * - `whole`: no usable Range (absent, another unit, several ranges, malformed, or made conditional by
 *   `If-Range`, which this server has no validator to compare with): the whole file, 200.
 * - `part`: the bytes `start` to `end` inclusive, 206.
 * - `unsatisfiable`: a well-formed range that starts past the end of the file (or an empty suffix), 416.
 */
export type ByteRange = { kind: "whole" } | { kind: "part"; start: number; end: number } | { kind: "unsatisfiable" };

const SINGLE = /^bytes=(\d*)-(\d*)$/;

export function resolveByteRange(header: string | null, size: number, ifRange: string | null = null): ByteRange {
  if (header === null || ifRange !== null) return { kind: "whole" };
  const match = SINGLE.exec(header.trim());
  if (!match) return { kind: "whole" };
  const [, first = "", last = ""] = match;
  if (first === "" && last === "") return { kind: "whole" };
  if (first === "") {
    // A suffix: the last N bytes (all of a shorter file).
    const length = Number(last);
    if (!Number.isSafeInteger(length)) return { kind: "whole" };
    if (length === 0 || size === 0) return { kind: "unsatisfiable" };
    return { kind: "part", start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  const end = last === "" ? size - 1 : Number(last);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end)) return { kind: "whole" };
  // "A last position less than the first" makes the range invalid, so the header is ignored.
  if (last !== "" && end < start) return { kind: "whole" };
  if (start >= size) return { kind: "unsatisfiable" };
  return { kind: "part", start, end: Math.min(end, size - 1) };
}
