import { createHash } from "node:crypto";

/**
 * The canonical content of an audit event, version 1 (decision 015), as the verifier computes it.
 * The database computes the same string in its insert trigger (migration 20261202010000_audit_chain);
 * the verifier never calls that function, so an owner who replaced it would change nothing here.
 *
 * One `name=value` line per field, in this order, each ending in "\n". Integers in decimal; the chain
 * as the case id in lowercase UUID text, or "operation:<uuid>" for an operation's events without a
 * case (decision 059), or "system" for events that belong to neither; hashes and digests as lowercase
 * hex (empty for a NULL field); the creation time as microseconds since the epoch (no time zone
 * enters); the two short texts kept in clear (actor id, kind) as "<UTF-8 byte length>:<text>", "-"
 * for NULL, so no value can pose as another line. Free text (the actor's label, and the before,
 * after and evidence JSON as PostgreSQL renders jsonb) enters only as its SHA-256 digest.
 */
export type ChainedEvent = {
  id: string;
  caseId: string | null;
  /** The operation whose chain an event without a case is on; null on a case's or the system chain. */
  operationRef: string | null;
  seq: number;
  /** Hashes and digests as lowercase hex, as the canonical content spells them. */
  prevHash: string;
  episode: number | null;
  actorKind: string;
  actorId: string | null;
  actorLabelDigest: string;
  kind: string;
  beforeDigest: string | null;
  afterDigest: string | null;
  evidenceDigest: string | null;
  /** Microseconds since 1970-01-01 UTC, as decimal text (beyond a JS number's exact range). */
  createdAtMicros: string;
};

export const CANONICAL_VERSION = "audit-chain-v1";
/** The predecessor of every chain's first event. */
export const GENESIS_HASH = Buffer.alloc(32);
export const GENESIS_HEX = GENESIS_HASH.toString("hex");
export const SYSTEM_CHAIN = "system";

const counted = (text: string | null) => (text === null ? "-" : `${Buffer.byteLength(text, "utf8")}:${text}`);

const OPERATION_CHAIN_PREFIX = "operation:";

export function chainKeyOf(caseId: string | null, operationRef: string | null): string {
  if (caseId !== null) return caseId;
  return operationRef !== null ? `${OPERATION_CHAIN_PREFIX}${operationRef}` : SYSTEM_CHAIN;
}

/** The case and operation a chain key names (inverse of `chainKeyOf`). */
export function chainOwnerOf(key: string): { caseId: string | null; operationRef: string | null } {
  if (key === SYSTEM_CHAIN) return { caseId: null, operationRef: null };
  if (key.startsWith(OPERATION_CHAIN_PREFIX))
    return { caseId: null, operationRef: key.slice(OPERATION_CHAIN_PREFIX.length) };
  return { caseId: key, operationRef: null };
}

export function canonicalContent(event: ChainedEvent): string {
  return [
    CANONICAL_VERSION,
    `id=${event.id}`,
    `chain=${chainKeyOf(event.caseId, event.operationRef)}`,
    `seq=${event.seq}`,
    `prev=${event.prevHash}`,
    `episode=${event.episode ?? ""}`,
    `actor_kind=${event.actorKind}`,
    `actor_id=${counted(event.actorId)}`,
    `actor_label_sha256=${event.actorLabelDigest}`,
    `kind=${counted(event.kind)}`,
    `before_sha256=${event.beforeDigest ?? ""}`,
    `after_sha256=${event.afterDigest ?? ""}`,
    `evidence_sha256=${event.evidenceDigest ?? ""}`,
    `created_at_us=${event.createdAtMicros}`,
    "",
  ].join("\n");
}

/** The event's hash, lowercase hex. */
export function eventHash(event: ChainedEvent): string {
  return createHash("sha256").update(canonicalContent(event), "utf8").digest("hex");
}

/** A free-text field's digest, lowercase hex: SHA-256 of its UTF-8 bytes (JSON as PostgreSQL renders jsonb). */
export function textDigest(text: string | null): string | null {
  return text === null ? null : createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * What a retention policy leaves in place of redacted text. The digest column keeps the original
 * text's digest, so the chain still verifies, and the verifier counts the field as redacted
 * instead of edited. Anything else whose digest differs is an edit.
 */
export const REDACTED_LABEL = "[redacted]";
const REDACTION_KEY = "$redacted";

/** The JSON a redaction writes: one key, saying when and why, e.g. "retention policy 2027-06-01". */
export function redactedJson(reason: string): { [REDACTION_KEY]: string } {
  return { [REDACTION_KEY]: reason };
}

export function isRedactedJson(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
    const keys = Object.keys(value);
    return (
      keys.length === 1 &&
      keys[0] === REDACTION_KEY &&
      typeof (value as Record<string, unknown>)[REDACTION_KEY] === "string"
    );
  } catch {
    return false;
  }
}
