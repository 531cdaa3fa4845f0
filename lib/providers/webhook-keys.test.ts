import { generateKeyPairSync, sign } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { falSignedHeaders, falSignedMessage, verifyFalSignature } from "./fal/webhook";
import { falWebhookKeys, KEY_REFETCH_INTERVAL_MS, replicateWebhookSecret } from "./webhook-keys";

// The keys the webhook checks need, fetched over real HTTP from a local stand-in: fal's JWKS is
// fetched again when a key rotates (no cached key verifies), and Replicate's secret is read once.
const keys = [generateKeyPairSync("ed25519")];
const hits: Record<string, number> = {};
const down = new Set<string>();
let base = "";
const server = createServer((req, res) => {
  const path = req.url ?? "";
  hits[path] = (hits[path] ?? 0) + 1;
  res.setHeader("content-type", "application/json");
  if (down.has(path)) {
    res.statusCode = 503;
    res.end("{}");
  } else if (path.startsWith("/jwks")) {
    const current = keys.at(-1);
    res.end(
      JSON.stringify({ keys: [{ kty: "OKP", crv: "Ed25519", x: current?.publicKey.export({ format: "jwk" }).x }] }),
    );
  } else if (path === "/v1/webhooks/default/secret" && req.headers.authorization === "Bearer r8_token") {
    res.end(JSON.stringify({ key: "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=" }));
  } else {
    res.statusCode = 401;
    res.end("{}");
  }
});
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function signedBy(key: (typeof keys)[number]) {
  const body = JSON.stringify({ request_id: "r1", status: "OK", payload: {} });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = sign(null, falSignedMessage("r1", "u1", timestamp, body), key.privateKey).toString("hex");
  const headers: Record<string, string> = {
    "x-fal-webhook-request-id": "r1",
    "x-fal-webhook-user-id": "u1",
    "x-fal-webhook-timestamp": timestamp,
    "x-fal-webhook-signature": signature,
  };
  const signed = falSignedHeaders((name) => headers[name]);
  if (!signed) throw new Error("headers did not parse");
  return { body, signed };
}

describe("webhook signing keys", () => {
  it("caches fal's JWKS, and a rotated key is found by fetching it again", async () => {
    const url = `${base}/jwks-rotation`;
    const at = Date.now();
    const first = signedBy(keys[0] as (typeof keys)[number]);
    expect(verifyFalSignature(await falWebhookKeys(url, { now: at }), first.body, first.signed)).not.toBeNull();
    expect(verifyFalSignature(await falWebhookKeys(url, { now: at }), first.body, first.signed)).not.toBeNull();
    expect(hits["/jwks-rotation"]).toBe(1);
    keys.push(generateKeyPairSync("ed25519"));
    const rotated = signedBy(keys[1] as (typeof keys)[number]);
    expect(verifyFalSignature(await falWebhookKeys(url, { now: at }), rotated.body, rotated.signed)).toBeNull();
    // A refresh right after a fetch is held back (a flood of unknown keys cannot make the product
    // hammer fal's JWKS); eleven seconds later it fetches, and the rotated key verifies.
    expect(await falWebhookKeys(url, { refresh: true, now: at })).toHaveLength(1);
    expect(hits["/jwks-rotation"]).toBe(1);
    const later = await falWebhookKeys(url, { refresh: true, now: at + 11_000 });
    expect(verifyFalSignature(later, rotated.body, rotated.signed)).not.toBeNull();
    expect(hits["/jwks-rotation"]).toBe(2);
  });

  it("keeps the keys it had when the JWKS cannot be fetched again, and has none if it never could", async () => {
    expect(await falWebhookKeys("http://127.0.0.1:9/jwks")).toEqual([]);
    const url = `${base}/jwks-kept`;
    expect(await falWebhookKeys(url)).toHaveLength(1);
    down.add("/jwks-kept");
    const stale = await falWebhookKeys(url, { refresh: true, now: Date.now() + 2 * 3600_000 });
    expect(stale).toHaveLength(1);
    expect(hits["/jwks-kept"]).toBeGreaterThan(1);
  });

  it("reads Replicate's signing secret once with the API token, or takes the configured one", async () => {
    expect(await replicateWebhookSecret({ secret: "whsec_configured", baseUrl: base })).toBe("whsec_configured");
    expect(await replicateWebhookSecret({ baseUrl: base })).toBeNull();
    expect(await replicateWebhookSecret({ apiToken: "wrong", baseUrl: `${base}/wrong` })).toBeNull();
    const read = await replicateWebhookSecret({ apiToken: "r8_token", baseUrl: base });
    expect(read).toBe("whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=");
    expect(await replicateWebhookSecret({ apiToken: "r8_token", baseUrl: base })).toBe(read);
    expect(hits["/v1/webhooks/default/secret"]).toBe(1);
  });
});

describe("a flood of webhooks never becomes a flood of key fetches", () => {
  it("asks a key source once for many concurrent callers, and not again within the interval after a failure", async () => {
    down.add("/v1/webhooks/default/secret");
    const floodBase = `${base}/flood`;
    const path = "/flood/v1/webhooks/default/secret";
    down.add(path);
    // One moment for the whole burst: the interval is the product's, never the machine's speed.
    const at = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 200 }, () => replicateWebhookSecret({ apiToken: "r8_token", baseUrl: floodBase, now: at })),
    );
    expect(answers.every((answer) => answer === null)).toBe(true);
    expect(hits[path]).toBe(1);
    expect(await replicateWebhookSecret({ apiToken: "r8_token", baseUrl: floodBase, now: at })).toBeNull();
    expect(hits[path]).toBe(1);
    // Past the interval it asks again, and a source that is back is read.
    down.delete(path);
    const later = at + KEY_REFETCH_INTERVAL_MS + 1;
    expect(hits[path]).toBe(1);
    await replicateWebhookSecret({ apiToken: "r8_token", baseUrl: floodBase, now: later });
    expect(hits[path]).toBe(2);
    down.delete("/v1/webhooks/default/secret");
  });

  it("refreshes fal's JWKS once for a burst of unknown keys while it is down", async () => {
    const url = `${base}/jwks-burst`;
    down.add("/jwks-burst");
    const at = Date.now();
    const first = await Promise.all(Array.from({ length: 200 }, () => falWebhookKeys(url, { refresh: true, now: at })));
    expect(first.every((keys) => keys.length === 0)).toBe(true);
    expect(hits["/jwks-burst"]).toBe(1);
    expect(await falWebhookKeys(url, { now: at })).toEqual([]);
    expect(hits["/jwks-burst"]).toBe(1);
  });
});
