import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, describe, expect, it } from "vitest";
import { API_ROUTES, routeKey } from "@/lib/api/routes";
import { SOCKET_ADDRESS_HEADER } from "@/lib/auth/client-address";
import { KEY_REFETCH_INTERVAL_MS } from "@/lib/providers/webhook-keys";
import { callRoute } from "./helpers/call-route";
import { openTestDb } from "./setup/test-db";

// Replicate's signing secret, when read with the account's token, is kept for the process
// (docs/performance.md §7a): a rotation at Replicate must reach it without a restart, and without
// letting unverifiable webhooks turn into a fetch each.
const secret = () => `whsec_${randomBytes(32).toString("base64")}`;
let current = secret();
let reads = 0;
const source = createServer((req, res) => {
  if (req.url === "/v1/webhooks/default/secret") reads += 1;
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify({ key: current }));
});
await new Promise<void>((resolve) => source.listen(0, "127.0.0.1", resolve));
delete process.env.REPLICATE_WEBHOOK_SECRET;
process.env.REPLICATE_API_TOKEN = "r8_rotation_test_token";
process.env.REPLICATE_BASE_URL = `http://127.0.0.1:${(source.address() as AddressInfo).port}`;
afterAll(() => new Promise<void>((resolve) => source.close(() => resolve())));

const { db } = openTestDb();
const route = API_ROUTES.find((r) => routeKey(r) === "POST /api/v1/provider-webhooks/replicate");
if (!route) throw new Error("the Replicate webhook route is not in the route table");

let sequence = 0;
function signedWith(key: string) {
  const id = `msg_rotation_${sequence++}`;
  const at = new Date();
  const raw = JSON.stringify({ id: `rotation-job-${sequence}`, status: "processing", output: null });
  return callRoute(route?.handle ?? (() => Promise.reject(new Error("no route"))), {
    rawBody: raw,
    headers: {
      [SOCKET_ADDRESS_HEADER]: "192.0.2.44",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": new Webhook(key).sign(id, at, raw),
    },
  });
}

describe("a Replicate secret read with the account's token", () => {
  it("is read once for a burst, read again after a rotation, and the old secret stops verifying", async () => {
    const first = current;
    const burst = await Promise.all(Array.from({ length: 20 }, () => signedWith(first)));
    expect(burst.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(reads).toBe(1);

    current = secret();
    // Within the interval of the first read the new secret cannot be asked for again: refused.
    const early = await signedWith(current);
    expect(early.status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, KEY_REFETCH_INTERVAL_MS + 200));
    const rotated = await signedWith(current);
    expect(rotated.status).toBe(200);
    expect(reads).toBe(2);
    expect(await db.providerWebhook.count({ where: { webhookId: { startsWith: "msg_rotation_" } } })).toBe(21);

    // The old secret no longer verifies, and its webhooks cost no read within the interval.
    const stale = await Promise.all(Array.from({ length: 5 }, () => signedWith(first)));
    expect(stale.map((a) => a.status)).toEqual(Array(5).fill(401));
    expect(reads).toBe(2);
  }, 30_000);
});
