import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/env";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { applyHttpTimeouts } from "@/server/http-timeouts";
import { serveDirect } from "@/server/serve-direct";
import { slowClient } from "./helpers/slow-client";
import { openTestDb } from "./setup/test-db";

// The HTTP entry's timeouts on a real node server, as server/main.ts applies them, with short limits
// from the same environment variables so that the test takes seconds rather than the production 15/30 s.
const HEADERS_MS = 1_000;
const REQUEST_MS = 2_000;
const { db } = openTestDb();
let server: Server;
let port = 0;
let producerKey = "";

beforeAll(async () => {
  producerKey = (await createAccessToken(db, "cli", { kind: "api_key", name: "slow-app" })).secret;
  const env = parseEnv({ HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_MS), HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS) });
  server = applyHttpTimeouts(
    createServer((req, res) => {
      if (serveDirect(req, res)) return;
      // A slow answer to a complete request, like a worker tick using its whole budget.
      setTimeout(() => res.end("slow but fine"), REQUEST_MS + 1_500);
    }),
    env,
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(
  () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
);

describe("the HTTP entry's timeouts", () => {
  it("defaults to 15 s for the headers and 30 s for the whole request", () => {
    const defaults = applyHttpTimeouts(createServer(), parseEnv({}));
    expect([defaults.headersTimeout, defaults.requestTimeout]).toEqual([15_000, 30_000]);
    expect(defaults.keepAliveTimeout).toBeLessThanOrEqual(defaults.headersTimeout);
  });

  it("close a connection whose headers trickle in a byte at a time, by the headers timeout", async () => {
    const result = await slowClient(
      port,
      { head: `POST /api/v1/cases HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${producerKey}\r\n\r\n` },
      { intervalMs: 100, giveUpMs: 8_000 },
    );
    expect(result.closedBy).toBe("server");
    expect(result.afterMs).toBeGreaterThanOrEqual(HEADERS_MS - 100);
    expect(result.afterMs).toBeLessThan(HEADERS_MS + 1_500);
    expect(result.reply).not.toMatch(/^HTTP\/1\.1 5/);
  });

  it("close a connection whose body trickles in to a direct route, by the request timeout", async () => {
    const body = JSON.stringify({ operationId: "x".repeat(400) });
    const result = await slowClient(
      port,
      {
        head: [
          "POST /api/v1/cases HTTP/1.1",
          "Host: x",
          `Authorization: Bearer ${producerKey}`,
          "Content-Type: application/json",
          `Content-Length: ${Buffer.byteLength(body)}`,
          "",
          "",
        ].join("\r\n"),
        body,
      },
      { intervalMs: 100, giveUpMs: 8_000 },
    );
    expect(result.closedBy).toBe("server");
    expect(result.afterMs).toBeGreaterThanOrEqual(REQUEST_MS - 100);
    expect(result.afterMs).toBeLessThan(REQUEST_MS + 1_500);
    expect(result.reply).not.toMatch(/^HTTP\/1\.1 5/);
  });

  it("leave a complete request's slow answer alone: only receiving the request is bounded", async () => {
    const response = await fetch(`http://127.0.0.1:${port}/slow`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("slow but fine");
  });
});
