import { createCipheriv, createHash } from "node:crypto";

/**
 * Output bytes are a pure function of the job id: AES-256-CTR keystream keyed by sha256(jobId).
 * Deterministic (same bytes and SHA-256 on every run and after restarts), incompressible like real
 * video, and cheap to produce in any size.
 */
export function outputBytes(jobId: string, size: number): Buffer {
  const key = createHash("sha256").update(`simulated-output:${jobId}`).digest();
  const cipher = createCipheriv("aes-256-ctr", key, Buffer.alloc(16));
  return Buffer.concat([cipher.update(Buffer.alloc(size)), cipher.final()]);
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
