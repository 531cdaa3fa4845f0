import { createHash } from "node:crypto";
import { DomainError } from "./errors";

const FINGERPRINT_PATTERN = /^sha256:[0-9a-f]{64}$/;

export function isFingerprint(value: unknown): value is string {
  return typeof value === "string" && FINGERPRINT_PATTERN.test(value);
}

/**
 * Sorted keys, no whitespace, so equal requests hash equally however they were built. Anything
 * JSON would silently alter (NaN -> null, Dates, Maps, class instances, undefined in arrays) is
 * refused instead: two different requests must never share a fingerprint by accident. Object
 * properties whose value is undefined are treated as absent, as JSON does.
 */
export function canonicalJson(value: unknown): string {
  return encode(value, new Set(), "$");
}

export function requestFingerprint(value: unknown): string {
  return `sha256:${createHash("sha256").update(canonicalJson(value), "utf8").digest("hex")}`;
}

function reject(path: string, why: string): never {
  throw new DomainError("invalid_input", `cannot fingerprint ${path}: ${why}`, { path });
}

function encode(value: unknown, ancestors: Set<object>, path: string): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "string":
      return JSON.stringify(value);
    case "number":
      if (!Number.isFinite(value)) reject(path, "non-finite number");
      return JSON.stringify(value);
    case "object":
      break;
    default:
      reject(path, `unsupported ${typeof value}`);
  }

  const container = value as object;
  if (ancestors.has(container)) reject(path, "circular reference");
  ancestors.add(container);
  try {
    if (Array.isArray(container)) {
      return `[${container
        .map((item, i) => {
          if (item === undefined) reject(`${path}[${i}]`, "undefined array item");
          return encode(item, ancestors, `${path}[${i}]`);
        })
        .join(",")}]`;
    }
    const proto = Object.getPrototypeOf(container);
    if (proto !== Object.prototype && proto !== null) reject(path, "not a plain object");
    const record = container as Record<string, unknown>;
    // Default sort compares UTF-16 code units, which is locale-independent and stable.
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort();
    const members = keys.map((key) => `${JSON.stringify(key)}:${encode(record[key], ancestors, `${path}.${key}`)}`);
    return `{${members.join(",")}}`;
  } finally {
    ancestors.delete(container);
  }
}
