import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, connect } from "node:net";
import fc from "fast-check";
import { applyHttpTimeouts } from "@/server/http-timeouts";
import { type SlowClientResult, slowClient } from "../../tests/integration/helpers/slow-client";

/**
 * Hostile input that only exists on the wire: header floods, raw invalid UTF-8 in the request
 * line, headers and body, and clients that trickle. Sent as raw bytes over TCP to a node server
 * set up as server/main.ts sets up its own (the same timeouts, the direct routes); what main.ts
 * hands to Next.js gets a 404 here.
 */

/**
 * Node's default limit (`--max-http-header-size`) on the URL plus every header name and value,
 * separators not counted.
 */
export const MAX_HEADER_BYTES = 16 * 1024;

export type WireEntry = { port: number; stop(): Promise<void> };

export async function startWireEntry(timeouts: { headersMs: number; requestMs: number }): Promise<WireEntry> {
  // Loaded late, like server/main.ts does: the route modules need Next's request scope set up first
  // (loadFuzzRoutes does that) and must read the environment the caller prepared.
  const { requestListener } = await import("@/server/request-listener");
  const standInForNext = (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { code: "not_found", message: "Served by Next.js in production." } }));
  };
  const server: Server = applyHttpTimeouts(createServer(requestListener(standInForNext, "http://localhost")), {
    HTTP_HEADERS_TIMEOUT_MS: timeouts.headersMs,
    HTTP_REQUEST_TIMEOUT_MS: timeouts.requestMs,
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** `headerBytes`: what Node counts against its header limit. */
export type WireRequest = { kind: string; bytes: Buffer; headerBytes: number };

const OVERLONG_AND_INVALID = [
  [0xc0, 0xaf], // overlong '/'
  [0xc1, 0xbf],
  [0xe0, 0x80, 0xaf], // overlong '/', three bytes
  [0xf0, 0x80, 0x80, 0xaf], // overlong '/', four bytes
  [0xed, 0xa0, 0x80], // a UTF-16 surrogate encoded as UTF-8
  [0xed, 0xbf, 0xbf],
  [0xf4, 0x90, 0x80, 0x80], // past U+10FFFF
  [0xff, 0xfe],
  [0x80],
  [0xe2, 0x82], // truncated
].map((bytes) => Buffer.from(bytes));
const percent = (bytes: Buffer) => [...bytes].map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join("");
/**
 * Paths with a percent-escape that does not decode, on every kind of target the entry has: a direct
 * route, a route Next.js serves, a console page. Each must be answered 400 by the entry itself, in
 * the API's error shape under /api/ (Next.js answered them a plain-text 500).
 */
const MALFORMED_ESCAPES = ["%FF", "%ED%A0%80", "%C0%AF", "%E0%A4%A", "%", "%zz", "100%", "%u00e9"];
const MALFORMED_PATHS = [
  (bad: string) => `/api/v1/cases/by-operation/${bad}`,
  (bad: string) => `/api/v1/replacements/${bad}/ack`,
  (bad: string) => `/api/v1/cases/${bad}`,
  (bad: string) => `/api/v1/cases/${bad}/evidence`,
  (bad: string) => `/api/v1/holds/${bad}/settle`,
  (bad: string) => `/cases/${bad}`,
  (bad: string) => `/cases/${bad}/evidence`,
  (bad: string) => `/queue/${bad}?stage=polling`,
];
const MALFORMED_KIND = "malformed escape in the path";
const API_ERROR_400 = '{"error":{"code":"invalid_request","message":"The URL is not validly encoded."}}';

const LONE_SURROGATE_ESCAPES = ["\\ud800", "\\udfff", "\\udc00\\ud800", "a\\ud83d", "\\u0000"];

const PATHS = [
  (bad: Buffer) => Buffer.concat([Buffer.from("/api/v1/cases/by-operation/op-"), bad]),
  (bad: Buffer) => Buffer.from(`/api/v1/cases/by-operation/${percent(bad)}`),
  (bad: Buffer) => Buffer.from(`/api/v1/replacements/${percent(bad)}/ack`),
  (bad: Buffer) => Buffer.concat([Buffer.from("/api/v1/replacements?cursor="), bad]),
  (bad: Buffer) => Buffer.from(`/api/v1/cases?x=${percent(bad)}`),
];

function request(kind: string, method: string, path: Buffer, headers: [string, Buffer | string][], body?: Buffer) {
  const all: [string, Buffer | string][] = [
    ["Host", "localhost"],
    ["Connection", "close"],
    ...headers,
    ...(body ? [["Content-Length", String(body.length)] as [string, string]] : []),
  ];
  const lines: Buffer[] = [Buffer.from(`${method} `), path, Buffer.from(" HTTP/1.1\r\n")];
  let headerBytes = path.length;
  for (const [name, value] of all) {
    lines.push(Buffer.from(`${name}: `), Buffer.from(value), Buffer.from("\r\n"));
    headerBytes += name.length + Buffer.byteLength(value);
  }
  lines.push(Buffer.from("\r\n"), body ?? Buffer.alloc(0));
  return { kind, bytes: Buffer.concat(lines), headerBytes };
}

/** Raw requests: about half header floods, the rest invalid UTF-8 in the path, a header or the body. */
export function wireRequests(producerKey: string): fc.Arbitrary<WireRequest> {
  const auth: [string, string] = ["Authorization", `Bearer ${producerKey}`];
  const json: [string, string] = ["Content-Type", "application/json"];
  const bad = fc.constantFrom(...OVERLONG_AND_INVALID);
  const manyHeaders = fc
    .tuple(fc.integer({ min: 50, max: 4_000 }), fc.integer({ min: 1, max: 24 }))
    .map(([count, size]) =>
      request(
        "many headers",
        "POST",
        Buffer.from("/api/v1/cases"),
        [auth, json, ...Array.from({ length: count }, (_, i): [string, string] => [`X-Flood-${i}`, "v".repeat(size)])],
        Buffer.from("{}"),
      ),
    );
  const hugeHeader = fc
    .tuple(
      fc.constantFrom("Cookie", "Authorization", "User-Agent", "X-Forwarded-For", "Content-Type"),
      fc.integer({ min: 4_000, max: 96_000 }),
    )
    .map(([name, size]) =>
      request("huge header", "GET", Buffer.from("/api/v1/replacements"), [[name, `Bearer ${"a".repeat(size)}`]]),
    );
  const badPath = fc
    .tuple(fc.constantFrom(...PATHS), bad, fc.boolean())
    .map(([path, bytes, post]) =>
      request(
        "invalid UTF-8 in the path",
        post ? "POST" : "GET",
        path(bytes),
        post ? [auth, json] : [auth],
        post ? Buffer.from("{}") : undefined,
      ),
    );
  const malformedEscape = fc
    .tuple(fc.constantFrom(...MALFORMED_PATHS), fc.constantFrom(...MALFORMED_ESCAPES), fc.boolean())
    .map(([path, bad, post]) =>
      request(
        MALFORMED_KIND,
        post ? "POST" : "GET",
        Buffer.from(path(bad)),
        post ? [auth, json] : [auth],
        post ? Buffer.from("{}") : undefined,
      ),
    );
  const badHeader = fc
    .tuple(bad, fc.constantFrom("Authorization", "Content-Type", "X-Request-Id", "Cookie"))
    .map(([bytes, name]) =>
      request(
        "invalid UTF-8 in a header",
        "POST",
        Buffer.from("/api/v1/cases"),
        [
          ...(name === "Authorization" ? [] : [auth]),
          [
            name,
            Buffer.concat([
              Buffer.from(name === "Authorization" ? `Bearer ${producerKey}` : "application/json"),
              bytes,
            ]),
          ],
          ...(name === "Content-Type" ? [] : [json]),
        ],
        Buffer.from("{}"),
      ),
    );
  const badBody = fc
    .oneof(
      bad.map((bytes) => Buffer.concat([Buffer.from('{"operationId":"'), bytes, Buffer.from('"}')])),
      fc
        .constantFrom(...LONE_SURROGATE_ESCAPES)
        .map((text) => Buffer.from(`{"operationId":"op-${text}","attemptId":"${text}","stage":"polling"}`)),
      fc.constantFrom(...LONE_SURROGATE_ESCAPES).map((text) => Buffer.from(`{"${text}":1}`)),
    )
    .chain((body) =>
      fc.constantFrom(
        request("invalid UTF-8 in the body", "POST", Buffer.from("/api/v1/cases"), [auth, json], body),
        request("invalid UTF-8 in the body", "POST", Buffer.from("/api/worker/tick"), [auth, json], body),
        request(
          "invalid UTF-8 in the body",
          "POST",
          Buffer.from(`/api/v1/replacements/${"0".repeat(8)}-0000-0000-0000-${"0".repeat(12)}/ack`),
          [auth, json],
          body,
        ),
      ),
    );
  return fc.oneof(
    { weight: 3, arbitrary: manyHeaders },
    { weight: 2, arbitrary: hugeHeader },
    { weight: 2, arbitrary: badPath },
    { weight: 2, arbitrary: malformedEscape },
    { weight: 1, arbitrary: badHeader },
    { weight: 2, arbitrary: badBody },
  );
}

/**
 * Sends raw bytes and reads the status line; null when the server closed without answering. With
 * `whole`, waits for the server to close (every request here says `Connection: close`) and answers
 * the whole response's text too.
 */
export function sendRaw(port: number, bytes: Buffer, timeoutMs = 10_000, whole = false): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    let settled = false;
    const settle = (status: number | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ status, text });
    };
    const timer = setTimeout(() => settle(null), timeoutMs);
    // Not end(): a half-closed request can be taken for an abandoned one before it is answered.
    socket.on("connect", () => socket.write(bytes));
    const status = () => {
      const line = text.match(/^HTTP\/1\.[01] (\d{3})/);
      return line ? Number(line[1]) : null;
    };
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1");
      if (!whole && status() !== null) settle(status());
    });
    // A reset after the answer (the server closing on a flood it refused) still counts the answer.
    socket.on("error", () => settle(status()));
    socket.on("close", () => settle(whole ? status() : null));
  });
}

export type RawAnswer = { status: number | null; text: string };

/** Why a malformed escape's answer is wrong, or null: a 400, with the API's typed error under /api/. */
function malformedAnswerProblem(wire: WireRequest, answer: RawAnswer): string | null {
  if (answer.status !== 400) return `status ${answer.status}`;
  const body = answer.text.slice(answer.text.indexOf("\r\n\r\n") + 4);
  const api = wire.bytes.toString("latin1").split(" ", 2)[1]?.startsWith("/api/");
  if (api && body !== API_ERROR_400) return `body ${body.slice(0, 120)}`;
  if (!api && !/^content-type: text\/html/im.test(answer.text)) return "not a page";
  return null;
}

export type WireReport = {
  requests: number;
  statuses: Record<string, number>;
  byKind: Record<string, Record<string, number>>;
  serverErrors: number;
  /** Requests whose headers were past Node's limit and were not answered 431. */
  floodsNot431: number;
  /** Paths with a malformed escape not answered 400 in the API's error shape (a page, off /api/). */
  malformedNot400: number;
  unanswered: number;
  examples: string[];
};

export async function fuzzWire(
  port: number,
  producerKey: string,
  options: { count: number; seed: number; concurrency?: number },
): Promise<WireReport> {
  const report: WireReport = {
    requests: 0,
    statuses: {},
    byKind: {},
    serverErrors: 0,
    floodsNot431: 0,
    malformedNot400: 0,
    unanswered: 0,
    examples: [],
  };
  const arb = wireRequests(producerKey);
  for (let done = 0, round = 0; done < options.count; round++) {
    const requests = fc.sample(arb, { numRuns: Math.min(200, options.count - done), seed: options.seed + round });
    let next = 0;
    await Promise.all(
      Array.from({ length: options.concurrency ?? 4 }, async () => {
        while (next < requests.length) {
          const wire = requests[next++] as WireRequest;
          const malformed = wire.kind === MALFORMED_KIND;
          const answer = await sendRaw(port, wire.bytes, 10_000, malformed);
          const { status } = answer;
          const key = status === null ? "none" : String(status);
          report.requests++;
          report.statuses[key] = (report.statuses[key] ?? 0) + 1;
          const kind = report.byKind[wire.kind] ?? {};
          kind[key] = (kind[key] ?? 0) + 1;
          report.byKind[wire.kind] = kind;
          const explain = `${wire.kind}, ${wire.headerBytes} header bytes: ${wire.bytes.toString("latin1", 0, 160)}`;
          if (status === null) report.unanswered++;
          const problem = malformed ? malformedAnswerProblem(wire, answer) : null;
          if (problem) {
            report.malformedNot400++;
            if (report.examples.length < 5) report.examples.push(`malformed escape, ${problem}: ${explain}`);
          }
          if (status !== null && status >= 500) {
            report.serverErrors++;
            if (report.examples.length < 5) report.examples.push(`${status}: ${explain}`);
          }
          if (wire.headerBytes > MAX_HEADER_BYTES && status !== 431) {
            report.floodsNot431++;
            if (report.examples.length < 5) report.examples.push(`not 431 (${key}): ${explain}`);
          }
        }
      }),
    );
    done += requests.length;
  }
  return report;
}

export type SlowClientsReport = {
  clients: number;
  cutByServer: number;
  notCut: number;
  serverErrors: number;
  slowestMs: number;
};

/**
 * Trickling clients, `lanes` at a time, until `stop()`: each sends its head (or, every other one,
 * a direct route's body) a byte at a time. Every one must be cut by the server within the request
 * timeout (plus Node's check interval), and never answered with a 5xx.
 */
export function startSlowClients(
  port: number,
  producerKey: string,
  options: { lanes: number; intervalMs: number; giveUpMs: number },
): { stop(): Promise<SlowClientsReport> } {
  const report: SlowClientsReport = { clients: 0, cutByServer: 0, notCut: 0, serverErrors: 0, slowestMs: 0 };
  let stopping = false;
  const body = JSON.stringify({ operationId: "slow", padding: "x".repeat(2_000) });
  const note = (result: SlowClientResult) => {
    report.clients++;
    if (result.closedBy === "server") report.cutByServer++;
    else report.notCut++;
    if (/^HTTP\/1\.[01] 5/.test(result.reply)) report.serverErrors++;
    report.slowestMs = Math.max(report.slowestMs, result.afterMs);
  };
  const lanes = Array.from({ length: options.lanes }, async (_, lane) => {
    for (let i = 0; !stopping || i === 0; i++) {
      const trickleBody = (lane + i) % 2 === 1;
      const top = `POST /api/v1/cases HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${producerKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
      note(
        await slowClient(port, trickleBody ? { head: top, body } : { head: top }, {
          intervalMs: options.intervalMs,
          giveUpMs: options.giveUpMs,
        }),
      );
    }
  });
  return {
    stop: async () => {
      stopping = true;
      await Promise.all(lanes);
      return report;
    },
  };
}
