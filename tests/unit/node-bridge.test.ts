import type { IncomingMessage } from "node:http";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { readLimitedBody } from "@/lib/api/read-json-body";
import { fromNodeRequest } from "@/server/node-bridge";

const request = (headers: Record<string, string | string[]> = {}) => {
  const stream = new PassThrough();
  Object.assign(stream, { method: "POST", url: "/api/v1/cases?x=1", headers });
  return { stream, api: fromNodeRequest(stream as unknown as IncomingMessage) };
};

describe("the HTTP entry's request adapter", () => {
  it("reads headers case-insensitively, joining repeated ones as Fetch does", () => {
    const { api } = request({ "content-type": "application/json", "x-many": ["a", "b"] });
    expect(api.header("Content-Type")).toBe("application/json");
    expect(api.header("x-many")).toBe("a, b");
    expect(api.header("authorization")).toBeNull();
    expect([api.method, api.url]).toEqual(["POST", "/api/v1/cases?x=1"]);
  });

  it("reads the whole body only when asked", async () => {
    const { stream, api } = request();
    stream.write('{"a":');
    stream.end("1}");
    expect(Buffer.from((await readLimitedBody(api.body(), 100)) as Uint8Array).toString()).toBe('{"a":1}');
  });

  it("stops at the limit, and fails when the client goes away before the end", async () => {
    const big = request();
    const tooLarge = readLimitedBody(big.api.body(), 10);
    big.stream.write("0123456789");
    big.stream.write("x");
    expect(await tooLarge).toBe("too_large");
    // Paused, not destroyed: the socket must stay to carry the 413.
    expect(big.stream.destroyed).toBe(false);

    const gone = request();
    const aborted = readLimitedBody(gone.api.body(), 100);
    gone.stream.write("{");
    gone.stream.destroy();
    await expect(aborted).rejects.toThrow("aborted");
    await expect(readLimitedBody(gone.api.body(), 100)).rejects.toThrow("aborted");
  });
});
