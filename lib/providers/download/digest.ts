/**
 * A server-declared SHA-256 of the full body, when one is sent: `Repr-Digest: sha-256=:<b64>:`
 * (RFC 9530) or the older `Digest: SHA-256=<b64>` (RFC 3230). Returned as lowercase hex. Real
 * delivery CDNs rarely send it; the simulator does, so corrupted bodies can be caught end to end.
 */
export function declaredSha256(headers: Headers): string | undefined {
  const modern = headers.get("repr-digest")?.match(/(?:^|,)\s*sha-256=:([A-Za-z0-9+/=]+):/i);
  const legacy = headers.get("digest")?.match(/(?:^|,)\s*sha-256=([A-Za-z0-9+/=]+)/i);
  const b64 = modern?.[1] ?? legacy?.[1];
  if (!b64) return undefined;
  const bytes = Buffer.from(b64, "base64");
  return bytes.length === 32 ? bytes.toString("hex") : undefined;
}

export function reprDigestHeader(sha256Hex: string): string {
  return `sha-256=:${Buffer.from(sha256Hex, "hex").toString("base64")}:`;
}
