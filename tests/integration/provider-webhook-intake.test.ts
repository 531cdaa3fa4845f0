import { generateKeyPairSync, randomUUID, sign } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { API_ROUTES, routeKey } from "@/lib/api/routes";
import { WEBHOOK_REFUSALS_PER_WINDOW } from "@/lib/api/webhook-throttle";
import { SOCKET_ADDRESS_HEADER } from "@/lib/auth/client-address";
import { falSignedMessage } from "@/lib/providers/fal/webhook";
import { KEY_REFETCH_INTERVAL_MS } from "@/lib/providers/webhook-keys";
import { callRoute } from "./helpers/call-route";
import { tableCounts } from "./helpers/table-counts";
import { openTestDb } from "./setup/test-db";

// Provider webhook routes are open to anyone until a signature verifies, and verifying may need
// the provider's keys from outside (Replicate's secret read with the account's token, fal's JWKS).
// A flood of unsigned POSTs must cost at most one outbound fetch per interval, and an address that
// keeps sending unverifiable webhooks is turned away before its body is read.
const hits: Record<string, number> = {};
const keySource = createServer((req, res) => {
  hits[req.url ?? ""] = (hits[req.url ?? ""] ?? 0) + 1;
  res.statusCode = 503;
  res.end("{}");
});
await new Promise<void>((resolve) => keySource.listen(0, "127.0.0.1", resolve));
const source = `http://127.0.0.1:${(keySource.address() as AddressInfo).port}`;
delete process.env.REPLICATE_WEBHOOK_SECRET;
process.env.REPLICATE_API_TOKEN = "r8_intake_test_token";
process.env.REPLICATE_BASE_URL = source;
process.env.FAL_JWKS_URL = `${source}/.well-known/jwks.json`;
afterAll(() => new Promise<void>((resolve) => keySource.close(() => resolve())));

const { db } = openTestDb();
/** One ask per interval is the promise: a slow machine that takes longer than one may ask once more per interval. */
const asksAllowedSince = (started: number) => 1 + Math.floor((Date.now() - started) / KEY_REFETCH_INTERVAL_MS);
const route = (key: string) => {
  const found = API_ROUTES.find((r) => routeKey(r) === key);
  if (!found) throw new Error(`${key} is not in the route table`);
  return found.handle;
};
const replicate = route("POST /api/v1/provider-webhooks/replicate");
const fal = route("POST /api/v1/provider-webhooks/fal");

describe("unauthenticated webhook traffic", () => {
  it("200 unsigned Replicate webhooks: one read of the secret, and the address is throttled past its limit", async () => {
    const before = await tableCounts(db);
    const started = Date.now();
    const statuses: number[] = [];
    for (let i = 0; i < 200; i++) {
      const answer = await callRoute(replicate, {
        rawBody: JSON.stringify({ id: `p${i}`, status: "succeeded" }),
        headers: {
          [SOCKET_ADDRESS_HEADER]: "198.51.100.20",
          "webhook-id": `msg_${i}`,
          "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
          "webhook-signature": "v1,bm90LWEtc2lnbmF0dXJl",
        },
      });
      statuses.push(answer.status);
    }
    expect(hits["/v1/webhooks/default/secret"]).toBeGreaterThanOrEqual(1);
    expect(hits["/v1/webhooks/default/secret"]).toBeLessThanOrEqual(asksAllowedSince(started));
    expect(statuses.slice(0, WEBHOOK_REFUSALS_PER_WINDOW).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(WEBHOOK_REFUSALS_PER_WINDOW).every((s) => s === 429)).toBe(true);
    expect(await tableCounts(db)).toEqual(before);
  });

  it("200 fal webhooks signed by an unknown key from 200 addresses while the JWKS is down: one JWKS fetch", async () => {
    const stranger = generateKeyPairSync("ed25519");
    const started = Date.now();
    const statuses = new Set<number>();
    for (let i = 0; i < 200; i++) {
      const body = JSON.stringify({ request_id: randomUUID(), status: "OK", payload: {} });
      const requestId = JSON.parse(body).request_id as string;
      const timestamp = String(Math.floor(Date.now() / 1000));
      const signature = sign(null, falSignedMessage(requestId, "u1", timestamp, body), stranger.privateKey);
      const answer = await callRoute(fal, {
        rawBody: body,
        headers: {
          [SOCKET_ADDRESS_HEADER]: `203.0.113.${i % 250}`,
          "x-fal-webhook-request-id": requestId,
          "x-fal-webhook-user-id": "u1",
          "x-fal-webhook-timestamp": timestamp,
          "x-fal-webhook-signature": signature.toString("hex"),
        },
      });
      statuses.add(answer.status);
    }
    expect([...statuses]).toEqual([401]);
    expect(hits["/.well-known/jwks.json"]).toBeGreaterThanOrEqual(1);
    expect(hits["/.well-known/jwks.json"]).toBeLessThanOrEqual(asksAllowedSince(started));
  });
});
