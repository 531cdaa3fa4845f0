import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createVeoAdapter } from "./adapter";

// The video download needs the API key, so the key must reach Google's own host and nothing else:
// two loopback servers stand for the API host and for any other host a URI or a redirect names.
const KEY = "AIza-test-key";
const BYTES = Buffer.alloc(4_096, 7);
type Seen = { path: string; headers: IncomingHttpHeaders };
let api: Server;
let other: Server;
const seenByApi: Seen[] = [];
const seenByOther: Seen[] = [];
const hostOf = (server: Server) => `127.0.0.1:${(server.address() as AddressInfo).port}`;

function listen(seen: Seen[], handle: (path: string, res: import("node:http").ServerResponse) => void) {
  const server = createServer((req, res) => {
    seen.push({ path: req.url ?? "", headers: req.headers });
    handle(req.url ?? "", res);
  });
  return new Promise<Server>((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

beforeAll(async () => {
  other = await listen(seenByOther, (_path, res) => {
    res.writeHead(200, { "content-type": "video/mp4", "content-length": String(BYTES.length) });
    res.end(BYTES);
  });
  api = await listen(seenByApi, (path, res) => {
    if (path.startsWith("/v1beta/files/moved")) {
      res.writeHead(302, { location: `http://${hostOf(other)}/video.mp4` });
      return res.end();
    }
    res.writeHead(200, { "content-type": "video/mp4", "content-length": String(BYTES.length) });
    res.end(BYTES);
  });
});
afterAll(async () => {
  await new Promise((resolve) => api.close(resolve));
  await new Promise((resolve) => other.close(resolve));
});
beforeEach(() => {
  seenByApi.length = 0;
  seenByOther.length = 0;
});

const sink = () =>
  new Writable({
    write(_chunk, _encoding, done) {
      done();
    },
  });
const adapter = (allowedDownloadHosts?: string[]) =>
  createVeoAdapter({ baseUrl: `http://${hostOf(api)}/v1beta`, apiKey: KEY, allowedDownloadHosts });
const fileUrl = (name: string) => `http://${hostOf(api)}/v1beta/files/${name}:download?alt=media`;

describe("a Veo video download", () => {
  it("sends the API key to the API's own host", async () => {
    const result = await adapter().downloadOutput(fileUrl("k3tq9x1cvb7m"), sink());
    expect(result).toMatchObject({ ok: true, size: BYTES.length });
    expect(seenByApi[0]?.headers["x-goog-api-key"]).toBe(KEY);
  });

  it("refuses a redirect off the documented host without contacting it", async () => {
    const result = await adapter().downloadOutput(fileUrl("moved"), sink());
    expect(result).toMatchObject({ ok: false, reason: "host_not_allowed" });
    expect(seenByOther).toHaveLength(0);
  });

  it("never sends the key to another host, even one the allow-list was widened to", async () => {
    const widened = adapter([hostOf(api), hostOf(other)]);
    expect(await widened.downloadOutput(fileUrl("moved"), sink())).toMatchObject({ ok: true });
    expect(seenByApi[0]?.headers["x-goog-api-key"]).toBe(KEY);
    expect(seenByOther).toHaveLength(1);
    expect(seenByOther[0]?.headers["x-goog-api-key"]).toBeUndefined();
    expect(await widened.downloadOutput(`http://${hostOf(other)}/video.mp4`, sink())).toMatchObject({ ok: true });
    expect(seenByOther.map((seen) => seen.headers["x-goog-api-key"])).toEqual([undefined, undefined]);
    expect(JSON.stringify(seenByOther)).not.toContain(KEY);
  });

  it("reads an operation with the key in its header, never in the URL", async () => {
    await adapter().getJob({ providerJobId: "models/veo-3.1-generate-preview/operations/k3tq9x1cvb7m" });
    expect(seenByApi[0]).toMatchObject({
      path: "/v1beta/models/veo-3.1-generate-preview/operations/k3tq9x1cvb7m",
      headers: { "x-goog-api-key": KEY },
    });
  });
});
