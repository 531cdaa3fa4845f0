export interface SanitiseLimits {
  maxStringLength: number;
  maxArrayItems: number;
  maxObjectKeys: number;
  maxDepth: number;
  /** Caps the total work, since per-level caps alone still allow 100^8 values. */
  maxNodes: number;
}

export const DEFAULT_SANITISE_LIMITS: Readonly<SanitiseLimits> = {
  maxStringLength: 2000,
  maxArrayItems: 100,
  maxObjectKeys: 100,
  maxDepth: 8,
  maxNodes: 2000,
};

export const REDACTED = "[redacted]";

// Compared after lower-casing and dropping "-" and "_", so "X-Api-Key", "api_key" and
// "apiKey" are one rule. Suffixes catch names like "github_token" or "webhookSecret".
const SECRET_KEYS = new Set(["authorization", "proxyauthorization", "cookie", "setcookie"]);
const SECRET_SUFFIXES = [
  "apikey",
  "token",
  "secret",
  "password",
  "passwd",
  "signature",
  "credential",
  "credentials",
  "privatekey",
];
const DANGEROUS_KEYS = new Set(["__proto__", "constructor", "prototype"]);

export function isSecretKey(key: string): boolean {
  const compact = key.toLowerCase().replace(/[-_]/g, "");
  return SECRET_KEYS.has(compact) || SECRET_SUFFIXES.some((suffix) => compact.endsWith(suffix));
}

const URL_PATTERN = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;
const AUTH_SCHEME_PATTERN = /\b(Bearer|Basic)\s+[A-Za-z0-9\-._~+/]+=*/gi;
const AUTH_HEADER_PATTERN = /\b(authorization\s*:\s*)[^\r\n]+/gi;
const SECRET_ASSIGNMENT_PATTERN =
  /\b((?:x[-_]?)?(?:api[-_]?key|access[-_]?token|refresh[-_]?token|client[-_]?secret|token|secret|password|signature)["']?\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s&,;"']+)/gi;

function redactUrl(url: string): string {
  const queryAt = url.indexOf("?");
  const fragmentAt = url.indexOf("#");
  const cut = Math.min(queryAt < 0 ? url.length : queryAt, fragmentAt < 0 ? url.length : fragmentAt);
  // Credentials written into the authority ("https://user:pass@host") are as secret as a token.
  const base = url.slice(0, cut).replace(/^([^:]+:\/\/)[^/@]*@/, `$1${REDACTED}@`);
  return queryAt >= 0 && queryAt === cut ? `${base}?${REDACTED}` : base;
}

/** Removes credentials from free text: signed URL queries, auth headers and key=value secrets. */
export function redactString(text: string): string {
  return text
    .replace(URL_PATTERN, redactUrl)
    .replace(AUTH_HEADER_PATTERN, `$1${REDACTED}`)
    .replace(AUTH_SCHEME_PATTERN, `$1 ${REDACTED}`)
    .replace(SECRET_ASSIGNMENT_PATTERN, `$1${REDACTED}`);
}

function truncate(text: string, max: number, originalLength = text.length): string {
  if (text.length <= max) return text;
  // Never split a surrogate pair, which would leave invalid text behind.
  const end = /[\uD800-\uDBFF]/.test(text.charAt(max - 1)) ? max - 1 : max;
  return `${text.slice(0, end)}…[truncated from ${originalLength} chars]`;
}

export function sanitiseString(text: string, maxLength = DEFAULT_SANITISE_LIMITS.maxStringLength): string {
  // Redact before truncating so a cut can never expose half a secret, but bound the regex work
  // first: anything past this prefix would be cut off anyway.
  return truncate(redactString(text.slice(0, maxLength + 4096)), maxLength, text.length);
}

interface Walk {
  limits: SanitiseLimits;
  nodes: number;
  ancestors: Set<object>;
}

/**
 * Returns a bounded, credential-free deep copy that is safe to store and to render. Objects are
 * ordinary object literals (not null-prototype) so they pass through serialisers unchanged;
 * keys that could reach a prototype are dropped instead.
 */
export function sanitise(value: unknown, limits: Partial<SanitiseLimits> = {}): unknown {
  const walk: Walk = { limits: { ...DEFAULT_SANITISE_LIMITS, ...limits }, nodes: 0, ancestors: new Set() };
  return copy(value, 0, walk);
}

function copy(value: unknown, depth: number, walk: Walk): unknown {
  walk.nodes += 1;
  if (walk.nodes > walk.limits.maxNodes) return "[truncated: too many values]";
  switch (typeof value) {
    case "string":
      return sanitiseString(value, walk.limits.maxStringLength);
    case "number":
      return Number.isFinite(value) ? value : null;
    case "boolean":
    case "undefined":
      return value;
    case "bigint":
      return value.toString();
    case "object":
      break;
    default:
      return "[unsupported]";
  }
  if (value === null) return null;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (ArrayBuffer.isView(value)) return `[binary ${value.byteLength} bytes]`;
  if (depth >= walk.limits.maxDepth) return "[truncated: too deep]";
  if (walk.ancestors.has(value)) return "[circular]";
  walk.ancestors.add(value);
  try {
    if (value instanceof Error) return copyObject({ name: value.name, message: value.message }, depth, walk);
    if (Array.isArray(value)) return copyArray(value, depth, walk);
    return copyObject(value, depth, walk);
  } finally {
    walk.ancestors.delete(value);
  }
}

function copyArray(items: readonly unknown[], depth: number, walk: Walk): unknown[] {
  const kept = items.slice(0, walk.limits.maxArrayItems).map((item) => copy(item, depth + 1, walk));
  if (items.length > kept.length) kept.push(`[truncated: ${items.length - kept.length} more items]`);
  return kept;
}

function copyObject(source: object, depth: number, walk: Walk): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const keys = Object.keys(source).filter((key) => !DANGEROUS_KEYS.has(key));
  for (const key of keys.slice(0, walk.limits.maxObjectKeys)) {
    const safeKey = truncate(key, 200);
    const raw = (source as Record<string, unknown>)[key];
    out[safeKey] = isSecretKey(key) ? REDACTED : copy(raw, depth + 1, walk);
  }
  if (keys.length > walk.limits.maxObjectKeys) {
    out["[truncated]"] = `${keys.length - walk.limits.maxObjectKeys} more keys`;
  }
  return out;
}
