import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { webhookHeaders } from "./sign-webhook";

describe("webhook signatures", () => {
  it("verify with an independent Standard Webhooks implementation, and fail when tampered", () => {
    const secret = `whsec_${randomBytes(32).toString("base64")}`;
    const body = JSON.stringify({ type: "case.resolved", data: { operationId: "order-1" } });
    const headers = webhookHeaders(secret, "msg_1", body);
    const verifier = new Webhook(secret);
    expect(verifier.verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => verifier.verify(body.replace("order-1", "order-2"), headers)).toThrow();
    expect(() => new Webhook(`whsec_${randomBytes(32).toString("base64")}`).verify(body, headers)).toThrow();
  });

  // The expected signature is node:crypto's HMAC-SHA256 of "msg_2.1796119200.{}" under that key.
  it("carry the id and the whole-second timestamp the signature covers", () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
    const headers = webhookHeaders(secret, "msg_2", "{}", new Date("2026-12-01T10:00:00.900Z"));
    expect(headers).toEqual({
      "content-type": "application/json",
      "webhook-id": "msg_2",
      "webhook-timestamp": "1796119200",
      "webhook-signature": "v1,NGs3HfYe82V9PRutlGK6BDxNhbBOg85ifyMkffKf6Vk=",
    });
  });

  it.each(["whsec_", "whsec_not*base64!"])("refuse to sign with %j instead of using a key nobody holds", (secret) => {
    expect(() => webhookHeaders(secret, "msg_3", "{}")).toThrow();
  });
});
