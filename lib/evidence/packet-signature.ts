import { createPublicKey, type KeyObject, sign, verify } from "node:crypto";
import { canonicalJson } from "@/lib/domain/fingerprint";
import type { EvidencePacket } from "./packet";
import { keyIdOf, publicKeyPemOf, type SigningKey } from "./signing-key";
import { checkTimelineChains, type TimelineCheck } from "./timeline-chain";

export const PACKET_FORMAT = "video-job-recovery.evidence-packet.v1";
export const SIGNATURE_ALGORITHM = "Ed25519";
export const CANONICALIZATION =
  "RFC 8785 (JCS): UTF-8, object keys sorted, no whitespace; the signed bytes are the canonical JSON of {format, packet}";

export type PacketSignature = {
  algorithm: typeof SIGNATURE_ALGORITHM;
  canonicalization: string;
  keyId: string;
  /** SubjectPublicKeyInfo PEM: `openssl pkeyutl -verify -pubin -inkey key.pem -rawin ...` reads it. */
  publicKey: string;
  /** The Ed25519 signature, standard base64. */
  value: string;
};

/** What is written to a file or sent: exactly its canonical JSON, so every byte is covered. */
export type SignedEvidence = { format: typeof PACKET_FORMAT; packet: EvidencePacket; signature: PacketSignature };

const signedBytes = (format: string, packet: unknown) => Buffer.from(canonicalJson({ format, packet }), "utf8");

export function signPacket(packet: EvidencePacket, key: SigningKey): SignedEvidence {
  if (packet.signer.keyId !== key.keyId) throw new Error("the packet names another signing key");
  const value = sign(null, signedBytes(PACKET_FORMAT, packet), key.privateKey).toString("base64");
  return {
    format: PACKET_FORMAT,
    packet,
    signature: {
      algorithm: SIGNATURE_ALGORITHM,
      canonicalization: CANONICALIZATION,
      keyId: key.keyId,
      publicKey: key.publicKeyPem,
      value,
    },
  };
}

/** The document's one text form (and file content): its canonical JSON, no trailing newline. */
export function evidenceText(document: SignedEvidence): string {
  return canonicalJson(document);
}

export type Verification =
  | { valid: true; keyId: string; demo: boolean; trusted: boolean; packet: EvidencePacket; timeline: TimelineCheck }
  | { valid: false; reason: string };

export type VerifyOptions = {
  /** Public keys (PEM) the recipient trusts; when given, a packet signed by any other key is refused. */
  trustedPublicKeys?: string[];
};

const fail = (reason: string): Verification => ({ valid: false, reason });

/**
 * Checks a received evidence file byte for byte: valid UTF-8, exactly the canonical JSON of what it
 * says (so no byte can change, not even white space), the Ed25519 signature over {format, packet}
 * with the embedded public key (whose id the packet itself names, under the signature), optionally
 * that key against the recipient's trusted keys, and the audit timeline's hash chain.
 */
export function verifyEvidenceBytes(bytes: Uint8Array, options: VerifyOptions = {}): Verification {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return fail("the file is not valid UTF-8");
  }
  return verifyEvidenceText(text, options);
}

export function verifyEvidenceText(text: string, options: VerifyOptions = {}): Verification {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return fail("the file is not JSON");
  }
  let canonical: string;
  try {
    canonical = canonicalJson(document);
  } catch {
    return fail("the file holds values canonical JSON cannot carry");
  }
  if (canonical !== text) return fail("the file is not in its canonical form: it was re-formatted or edited");
  if (!isEnvelope(document)) return fail("the file is not an evidence packet of this format");
  const { packet, signature } = document;
  if (signature.algorithm !== SIGNATURE_ALGORITHM) return fail(`unsupported signature algorithm`);
  if (signature.canonicalization !== CANONICALIZATION) return fail("unsupported canonicalization");
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey({ key: signature.publicKey, format: "pem" });
  } catch {
    return fail("the embedded public key cannot be read");
  }
  if (publicKey.asymmetricKeyType !== "ed25519" || publicKeyPemOf(publicKey) !== signature.publicKey) {
    return fail("the embedded public key is not an Ed25519 key in its canonical PEM form");
  }
  const keyId = keyIdOf(publicKey);
  if (signature.keyId !== keyId || packet.signer.keyId !== keyId) {
    return fail("the key id does not match the embedded public key");
  }
  const value = Buffer.from(signature.value, "base64");
  if (value.length !== 64 || value.toString("base64") !== signature.value) {
    return fail("the signature is not a base64 Ed25519 signature");
  }
  if (!verify(null, signedBytes(document.format, packet), publicKey, value)) {
    return fail("the signature does not match the content: the packet was edited");
  }
  const trusted = (options.trustedPublicKeys ?? []).some((pem) => {
    try {
      return keyIdOf(createPublicKey({ key: pem, format: "pem" })) === keyId;
    } catch {
      return false;
    }
  });
  if (options.trustedPublicKeys && !trusted) return fail(`signed by ${keyId}, which is not a trusted key`);
  const timeline = checkTimelineChains(packet);
  if (!timeline.intact) return fail(`the audit timeline does not hold together: ${timeline.problems[0]}`);
  return { valid: true, keyId, demo: packet.signer.demo, trusted, packet, timeline };
}

function isEnvelope(value: unknown): value is SignedEvidence {
  const doc = value as Partial<SignedEvidence> | null;
  const signature = doc?.signature as Partial<PacketSignature> | undefined;
  const packet = doc?.packet as Partial<EvidencePacket> | undefined;
  return (
    typeof doc === "object" &&
    doc !== null &&
    doc.format === PACKET_FORMAT &&
    typeof packet === "object" &&
    packet !== null &&
    typeof packet.signer?.keyId === "string" &&
    Array.isArray(packet.cases) &&
    typeof signature === "object" &&
    signature !== null &&
    ["algorithm", "canonicalization", "keyId", "publicKey", "value"].every(
      (field) => typeof (signature as Record<string, unknown>)[field] === "string",
    )
  );
}
