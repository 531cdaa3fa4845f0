import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { newWebhookId, webhookHeaders } from "@/lib/notify/sign-webhook";
import { canonicalJson, createRecoveryClient, RecoveryApiError, requestFingerprint, verifyNotification } from "./index";

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

describe("verifyNotification takes headers as servers hand them over", () => {
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  const body = JSON.stringify({ type: "case.parked", caseId: "c7" });

  it("Node's IncomingHttpHeaders, as a real request arrives", async () => {
    const received = await new Promise<{ headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (chunk: Buffer) => chunks.push(chunk));
        req.on("end", () => {
          res.end();
          server.close();
          resolve({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
        });
      });
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo;
        fetch(`http://127.0.0.1:${port}/hook`, {
          method: "POST",
          headers: { ...webhookHeaders(secret, newWebhookId(), body), "content-type": "application/json" },
          body,
        }).catch(reject);
      });
    });
    expect(verifyNotification(secret, received.body, received.headers)).toEqual({ type: "case.parked", caseId: "c7" });
    expect(() => verifyNotification(secret, received.body.replace("c7", "c8"), received.headers)).toThrow();
  });

  it("a Fetch Headers, a plain object in any case, and a header given as a list", () => {
    const signed = webhookHeaders(secret, newWebhookId(), body);
    expect(verifyNotification(secret, body, new Headers(signed))).toEqual({ type: "case.parked", caseId: "c7" });
    const shouted = Object.fromEntries(Object.entries(signed).map(([key, value]) => [key.toUpperCase(), value]));
    expect(verifyNotification(secret, body, shouted)).toEqual({ type: "case.parked", caseId: "c7" });
    const listed = { ...signed, "webhook-signature": ["v1,bm90IHRoaXMgb25l", signed["webhook-signature"] ?? ""] };
    expect(verifyNotification(secret, body, listed)).toEqual({ type: "case.parked", caseId: "c7" });
    expect(() => verifyNotification(secret, body, { ...signed, "webhook-signature": undefined })).toThrow();
  });
});

describe("RecoveryApiError", () => {
  const answering = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    createRecoveryClient({
      baseUrl: "http://recovery.invalid",
      apiKey: "vrk_test",
      fetch: async () =>
        new Response(typeof body === "string" ? body : JSON.stringify(body), {
          status,
          headers: { "content-type": "application/json", ...headers },
        }),
    });

  it("carries the body's code, message, issues and details, and a 429's Retry-After", async () => {
    const details = { limitMicros: 1_000_000, usedMicros: 900_000, currency: "USD" };
    const error = await answering(
      429,
      { error: { code: "rate_limited", message: "Too many requests for this key; slow down.", details } },
      { "retry-after": "7" },
    )
      .lookup("op-1")
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(RecoveryApiError);
    expect(error).toMatchObject({
      status: 429,
      code: "rate_limited",
      serverMessage: "Too many requests for this key; slow down.",
      issues: [],
      details,
      retryAfterSeconds: 7,
      message: "429 rate_limited: Too many requests for this key; slow down.",
    });
  });

  it("names the HTTP status when the body is not the API's", async () => {
    const error = await answering(502, "<html>bad gateway</html>")
      .replacements()
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ status: 502, code: "http_error", issues: [], details: undefined });
  });
});
