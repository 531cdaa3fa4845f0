import type { IncomingMessage } from "node:http";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { fromFetchRequest } from "@/lib/api/api-request";
import { readLimitedBody } from "@/lib/api/read-json-body";
import { fromNodeRequest } from "@/server/node-bridge";

// One byte-limited reader for both transports: a Fetch body (Next.js) and a Node request (the HTTP entry).

const chunks = ["0123", "4567", "89"];

function fetchBody() {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[pulled++];
      if (next === undefined) controller.close();
      else controller.enqueue(new TextEncoder().encode(next));
    },
  });
  const req = new Request("http://localhost/api/v1/cases", {
    method: "POST",
    body: stream,
    duplex: "half",
  } as RequestInit);
  return { api: fromFetchRequest(req) };
}

function nodeBody() {
  const stream = new PassThrough();
  Object.assign(stream, { method: "POST", url: "/api/v1/cases", headers: {} });
  for (const chunk of chunks) stream.write(chunk);
  stream.end();
  return { api: fromNodeRequest(stream as unknown as IncomingMessage) };
}

describe("the byte-limited body reader", () => {
  it.each([
    ["a Fetch body", () => fetchBody().api],
    ["a Node request", () => nodeBody().api],
  ])("reads %s whole when it fits, and refuses it past the limit", async (_name, make) => {
    expect(Buffer.from((await readLimitedBody(make().body(), 10)) as Uint8Array).toString()).toBe("0123456789");
    expect(await readLimitedBody(make().body(), 9)).toBe("too_large");
  });

  it("reads no body as empty", async () => {
    const api = fromFetchRequest(new Request("http://localhost/api/v1/cases"));
    expect(Buffer.from((await readLimitedBody(api.body(), 10)) as Uint8Array).toString()).toBe("");
  });
});
