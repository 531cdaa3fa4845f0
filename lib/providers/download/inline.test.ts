import { createHash } from "node:crypto";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { downloadToSink } from "./download";
import { hostPolicy } from "./hosts";
import { decodeDataUri } from "./inline";

const bytes = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 31) % 251));
const sha256 = createHash("sha256").update(bytes).digest("hex");
const dataUri = `data:video/mp4;base64,${bytes.toString("base64")}`;
// No host at all is allowed: an inline output must not need one.
const hosts = hostPolicy("https://api.example", [], []);

function memorySink() {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  return { sink, received: () => Buffer.concat(chunks) };
}

const request = (url: string, sink: Writable, extra: object = {}) => ({
  url,
  hosts,
  sink,
  maxBytes: 1024 * 1024,
  timeoutMs: 5_000,
  ...extra,
});

describe("an output given inline as a data: URI", () => {
  it("is decoded into the sink without a fetch, digested and checked like a fetched body", async () => {
    const { sink, received } = memorySink();
    const result = await downloadToSink(request(dataUri, sink, { expectedSize: bytes.length, expectedSha256: sha256 }));
    expect(result).toEqual({
      ok: true,
      size: bytes.length,
      sha256,
      contentType: "video/mp4",
      verifiedBy: ["inline", "expected-size", "expected-sha256"],
    });
    expect(received().equals(bytes)).toBe(true);
    expect(sink.writableFinished).toBe(true);
  });

  it("is refused before decoding when it could not fit the size limit, and nothing is kept", async () => {
    const { sink } = memorySink();
    const result = await downloadToSink(request(dataUri, sink, { maxBytes: 1000 }));
    expect(result).toMatchObject({ ok: false, reason: "too_large", bytesReceived: 0 });
    expect(sink.destroyed).toBe(true);
  });

  it("is refused when it is not what it claims, or does not match what was expected", async () => {
    const bad = await downloadToSink(request("data:video/mp4;base64,@@not base64@@", memorySink().sink));
    expect(bad).toMatchObject({ ok: false, reason: "malformed_inline" });
    const mismatch = await downloadToSink(request(dataUri, memorySink().sink, { expectedSha256: "0".repeat(64) }));
    expect(mismatch).toMatchObject({ ok: false, reason: "checksum_mismatch" });
  });

  it("leaves the allow-list in charge of every URL that is fetched", async () => {
    const result = await downloadToSink(request("https://elsewhere.example/v.mp4", memorySink().sink));
    expect(result).toMatchObject({ ok: false, reason: "host_not_allowed" });
    const scheme = await downloadToSink(request("file:///etc/passwd", memorySink().sink));
    expect(scheme).toMatchObject({ ok: false, reason: "host_not_allowed" });
  });
});

describe("decodeDataUri", () => {
  it("reads base64, URL-safe base64 and percent-encoding", () => {
    expect(decodeDataUri("data:;base64,AAEC", 10)).toEqual({ ok: true, bytes: Buffer.from([0, 1, 2]) });
    expect(decodeDataUri("data:application/octet-stream;base64,-_8", 10)).toMatchObject({
      ok: true,
      bytes: Buffer.from([0xfb, 0xff]),
    });
    expect(decodeDataUri("data:text/plain,a%20b", 10)).toEqual({
      ok: true,
      bytes: Buffer.from("a b"),
      contentType: "text/plain",
    });
    expect(decodeDataUri("data:text/plain,%zz", 10)).toMatchObject({ ok: false, reason: "malformed_inline" });
    expect(decodeDataUri("data:video/mp4;base64", 10)).toMatchObject({ ok: false, reason: "malformed_inline" });
  });
});
