import type { DownloadFailure } from "../types";

export type InlineBody =
  | { ok: true; bytes: Buffer; contentType?: string }
  | { ok: false; reason: Extract<DownloadFailure, "too_large" | "malformed_inline">; detail: string };

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;

/**
 * The bytes of a `data:` URI (RFC 2397), refused before decoding when they could not fit in
 * `maxBytes`. Base64 (standard or URL-safe, as Google's JSON may spell bytes) and percent-encoded
 * payloads are read; anything else is malformed, never guessed at.
 */
export function decodeDataUri(url: string, maxBytes: number): InlineBody {
  const comma = url.indexOf(",");
  if (!/^data:/i.test(url) || comma < 0) return { ok: false, reason: "malformed_inline", detail: "not a data: URI" };
  const header = url.slice(5, comma).split(";");
  const payload = url.slice(comma + 1);
  const isBase64 = header.slice(1).some((p) => p.toLowerCase() === "base64");
  const mediaType = header[0]?.trim() || undefined;
  // Checked on the encoded length, so an oversized answer is refused without allocating its bytes.
  const atMost = isBase64 ? Math.floor((payload.length * 3) / 4) : payload.length;
  const atLeast = isBase64 ? atMost - 2 : Math.ceil(payload.length / 3);
  if (atLeast > maxBytes) {
    return { ok: false, reason: "too_large", detail: `inline output of about ${atMost} bytes, limit ${maxBytes}` };
  }
  let bytes: Buffer;
  if (isBase64) {
    const clean = payload.replace(/\s+/g, "");
    if (!BASE64.test(clean) && !BASE64URL.test(clean)) {
      return { ok: false, reason: "malformed_inline", detail: "the inline output is not base64" };
    }
    bytes = Buffer.from(clean, BASE64.test(clean) ? "base64" : "base64url");
  } else {
    const decoded = percentDecoded(payload);
    if (!decoded) return { ok: false, reason: "malformed_inline", detail: "the inline output is not percent-encoded" };
    bytes = decoded;
  }
  if (bytes.length > maxBytes) {
    return { ok: false, reason: "too_large", detail: `inline output of ${bytes.length} bytes, limit ${maxBytes}` };
  }
  return { ok: true, bytes, ...(mediaType ? { contentType: mediaType } : {}) };
}

function percentDecoded(payload: string): Buffer | undefined {
  const out: number[] = [];
  for (let i = 0; i < payload.length; i++) {
    const char = payload.charCodeAt(i);
    if (char !== 0x25) {
      if (char > 0x7f) return undefined;
      out.push(char);
      continue;
    }
    const hex = payload.slice(i + 1, i + 3);
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return undefined;
    out.push(Number.parseInt(hex, 16));
    i += 2;
  }
  return Buffer.from(out);
}
