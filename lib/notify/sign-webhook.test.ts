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
});
