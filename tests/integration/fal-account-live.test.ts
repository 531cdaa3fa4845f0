import { generateKeyPairSync, randomUUID, sign } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { API_ROUTES, routeKey } from "@/lib/api/routes";
import { falSignedMessage } from "@/lib/providers/fal/webhook";
import { callRoute } from "./helpers/call-route";
import { tableCounts } from "./helpers/table-counts";
import { openTestDb } from "./setup/test-db";

// Against the real fal, a webhook fal really signed proves only "some fal account": a producer with
// its own fal key and this deployment's webhook URL could be the first one shown. So in live mode
// the account is configured (FAL_USER_ID), never learned, and without it fal webhooks are refused.
const keys = generateKeyPairSync("ed25519");
const jwks = createServer((_req, res) => {
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify({ keys: [{ kty: "OKP", crv: "Ed25519", x: keys.publicKey.export({ format: "jwk" }).x }] }));
});
await new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve));
process.env.PROVIDER_MODE = "live";
process.env.FAL_KEY = "fal-live-test-key";
delete process.env.FAL_USER_ID;
process.env.FAL_JWKS_URL = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/.well-known/jwks.json`;
afterAll(() => new Promise<void>((resolve) => jwks.close(() => resolve())));

const { db } = openTestDb();
const fal = API_ROUTES.find((r) => routeKey(r) === "POST /api/v1/provider-webhooks/fal")?.handle;

describe("fal webhooks in live mode", () => {
  it("are refused without FAL_USER_ID, however well signed, and nothing is pinned or kept", async () => {
    if (!fal) throw new Error("the fal webhook route is not in the route table");
    const before = await tableCounts(db);
    const requestId = randomUUID();
    const body = JSON.stringify({ request_id: requestId, status: "OK", payload: {} });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = sign(null, falSignedMessage(requestId, "whoever-came-first", timestamp, body), keys.privateKey);
    const answer = await callRoute(fal, {
      rawBody: body,
      headers: {
        "x-fal-webhook-request-id": requestId,
        "x-fal-webhook-user-id": "whoever-came-first",
        "x-fal-webhook-timestamp": timestamp,
        "x-fal-webhook-signature": signature.toString("hex"),
      },
    });
    expect(answer.status).toBe(401);
    expect(answer.json.error?.message).toContain("FAL_USER_ID");
    expect(await db.providerAccount.count()).toBe(0);
    expect(await tableCounts(db)).toEqual(before);
  });
});
