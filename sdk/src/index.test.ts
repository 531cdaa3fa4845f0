import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { newWebhookId, webhookHeaders } from "@/lib/notify/sign-webhook";
import { canonicalJson, requestFingerprint, verifyNotification } from "./index";

// The vectors pin the canonical form: an SDK in another language must reproduce them exactly, and
// a change to the server's canonicalisation fails here before it splits producers from the server.
const vectors = JSON.parse(readFileSync(path.resolve(__dirname, "../fingerprint-vectors.json"), "utf8")) as {
  input: unknown;
  canonical: string;
  fingerprint: string;
}[];

describe("the producer SDK, offline", () => {
  it.each(vectors.map((v, i) => [i, v] as const))("fingerprints vector %i as the server does", (_i, vector) => {
    expect(canonicalJson(vector.input)).toBe(vector.canonical);
    expect(requestFingerprint(vector.input)).toBe(vector.fingerprint);
  });

  it("orders keys, so the same request built two ways has one fingerprint", () => {
    expect(vectors[0]?.fingerprint).toBe(vectors[1]?.fingerprint);
  });

  it("verifies the product's own signed notifications, and refuses a changed body", () => {
    const secret = `whsec_${randomBytes(32).toString("base64")}`;
    const body = JSON.stringify({ type: "case.resolved", caseId: "c1" });
    const headers = webhookHeaders(secret, newWebhookId(), body);
    expect(verifyNotification(secret, body, headers)).toEqual({ type: "case.resolved", caseId: "c1" });
    expect(() => verifyNotification(secret, body.replace("c1", "c2"), headers)).toThrow();
  });
});
