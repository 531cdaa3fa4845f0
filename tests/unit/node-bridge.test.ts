import type { IncomingMessage } from "node:http";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
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
    expect(Buffer.from((await api.readBody(100)) as Uint8Array).toString()).toBe('{"a":1}');
  });

  it("stops at the limit, and fails when the client goes away before the end", async () => {
    const big = request();
    const tooLarge = big.api.readBody(10);
    big.stream.write("0123456789");
    big.stream.write("x");
    expect(await tooLarge).toBe("too_large");

    const gone = request();
    const aborted = gone.api.readBody(100);
    gone.stream.write("{");
    gone.stream.destroy();
    await expect(aborted).rejects.toThrow("aborted");
    await expect(gone.api.readBody(100)).rejects.toThrow("aborted");
  });
});
