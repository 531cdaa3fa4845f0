import { createHash } from "node:crypto";

// The canonical form both sides of the wire compute: the server fingerprints what producers park
// and what providers list, and the producer SDK (sdk/) compiles this file into its package, so a
// producer's fingerprint is this code, not a copy. Nothing here may import the rest of the project:
// the SDK's build would pull it in (tests/integration/sdk-package.test.ts checks the package holds
// no path into the app). sdk/fingerprint-vectors.json pins the output for other languages.

/** Why a value has no canonical form; `path` is where (`$.a[2]`). lib/domain/fingerprint.ts makes it a DomainError. */
export class CanonicalJsonError extends Error {
  override name = "CanonicalJsonError";
  readonly code = "invalid_input";
  constructor(
    readonly path: string,
    why: string,
  ) {
    super(`cannot fingerprint ${path}: ${why}`);
  }
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

/** `sha256:` and the hex SHA-256 of the canonical JSON: what a permit and a parked case carry. */
export function requestFingerprint(value: unknown): string {
  return `sha256:${createHash("sha256").update(canonicalJson(value), "utf8").digest("hex")}`;
}

function reject(path: string, why: string): never {
  throw new CanonicalJsonError(path, why);
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
