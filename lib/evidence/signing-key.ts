import { createHash, createPrivateKey, createPublicKey, hkdfSync, type KeyObject } from "node:crypto";

/**
 * The deployment's evidence signing key (decision 029): an Ed25519 private key, configured as
 * EVIDENCE_SIGNING_KEY in PKCS#8 PEM (`openssl genpkey -algorithm ed25519`), with real line breaks
 * or "\n" escapes (one line in a .env file). Demo mode without one derives a key from the demo's
 * AUTH_SECRET (which the launcher generates and keeps under DATA_DIR, mode 0600), or from a
 * published label when there is no secret at all; packets signed so say `demo: true`, and
 * production refuses to start with the published demo key.
 */
export type SigningKey = {
  privateKey: KeyObject;
  /** SubjectPublicKeyInfo PEM, exactly as the packet carries it. */
  publicKeyPem: string;
  keyId: string;
  /** Derived in demo mode rather than configured: a packet signed with it is not evidence. */
  demo: boolean;
};

// DER prefix of a PKCS#8 Ed25519 private key (RFC 8410); the 32-byte seed follows it.
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
const DERIVATION_INFO = "video-job-recovery evidence packet signing key v1";
/** What the demo derives from when it has no secret either; public, like the demo passwords. */
export const PUBLISHED_DEMO_LABEL = "demo: no AUTH_SECRET; this key is published and proves nothing";

/** The PEM text of a configured key, with "\n" escapes turned into line breaks. */
const pemText = (configured: string) => configured.replace(/\\n/g, "\n").trim();

/** The configured key, or null when the text is not an Ed25519 private key in PKCS#8 PEM. */
export function parsePrivateKey(configured: string): KeyObject | null {
  try {
    const key = createPrivateKey({ key: pemText(configured), format: "pem" });
    return key.asymmetricKeyType === "ed25519" ? key : null;
  } catch {
    return null;
  }
}

/** A key from a 32-byte seed. */
export function keyFromSeed(seed: Buffer): KeyObject {
  if (seed.length !== 32) throw new Error("an Ed25519 seed is 32 bytes");
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: "der", type: "pkcs8" });
}

/** The demo's key: HKDF-SHA256 of its secret (or of the published label), never a configured key. */
export function demoPrivateKey(authSecret: string | undefined): KeyObject {
  const material = authSecret ?? PUBLISHED_DEMO_LABEL;
  return keyFromSeed(Buffer.from(hkdfSync("sha256", material, "", DERIVATION_INFO, 32)));
}

export function publicKeyPemOf(key: KeyObject): string {
  const publicKey = key.type === "private" ? createPublicKey(key) : key;
  return publicKey.export({ type: "spki", format: "pem" }).toString();
}

/** "ed25519:" and the first 16 hex digits of SHA-256 over the public key's DER (SubjectPublicKeyInfo). */
export function keyIdOf(key: KeyObject): string {
  const publicKey = key.type === "private" ? createPublicKey(key) : key;
  const der = publicKey.export({ type: "spki", format: "der" });
  return `ed25519:${createHash("sha256").update(der).digest("hex").slice(0, 16)}`;
}

export function signingKeyOf(privateKey: KeyObject, demo: boolean): SigningKey {
  return { privateKey, publicKeyPem: publicKeyPemOf(privateKey), keyId: keyIdOf(privateKey), demo };
}

/** True when a configured key is the one anybody can derive from the published demo label. */
export function isPublishedDemoKey(configured: string): boolean {
  const key = parsePrivateKey(configured);
  return key !== null && keyIdOf(key) === keyIdOf(demoPrivateKey(undefined));
}
