import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

export type ReceivedWebhook = {
  webhookId: string;
  verified: boolean;
  /** The verified payload; undefined when the signature did not verify. */
  payload: unknown;
  status: number;
  receivedAt: number;
  /** The Host header: the endpoint's name, even when the sender connected to an address it resolved itself. */
  host: string;
  /** The raw body and the Standard Webhooks headers, for a check with another secret (the SDK's, a rotated one). */
  body: string;
  signatureHeaders: Record<"webhook-id" | "webhook-timestamp" | "webhook-signature", string>;
};

export type WebhookReceiver = {
  url: string;
  received: ReceivedWebhook[];
  /** How many 2xx answers each webhook-id got: a correct sender makes this exactly one. */
  acceptedCount(webhookId: string): number;
  stop(): Promise<void>;
};

const headerValue = (headers: IncomingHttpHeaders, name: string) => {
  const value = headers[name];
  return Array.isArray(value) ? value.join(",") : (value ?? "");
};

/**
 * A producer's endpoint: verifies every delivery against the signing secret with the Standard
 * Webhooks algorithm and records it. `answer` picks the HTTP status (200 unless told otherwise).
 * Without a secret (one not issued yet when the URL is needed) nothing verifies here; the records
 * keep the raw body and headers for the test to check.
 */
export async function startWebhookReceiver(
  secret: string | null,
  answer: (webhookId: string, verified: boolean) => number = () => 200,
): Promise<WebhookReceiver> {
  const verifier = secret ? new Webhook(secret) : null;
  const received: ReceivedWebhook[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const webhookId = headerValue(req.headers, "webhook-id");
      const signatureHeaders = {
        "webhook-id": webhookId,
        "webhook-timestamp": headerValue(req.headers, "webhook-timestamp"),
        "webhook-signature": headerValue(req.headers, "webhook-signature"),
      };
      let payload: unknown;
      let verified = false;
      try {
        if (verifier) {
          payload = verifier.verify(body, signatureHeaders);
          verified = true;
        }
      } catch {
        payload = undefined;
      }
      const status = answer(webhookId, verified);
      const host = req.headers.host ?? "";
      received.push({ webhookId, verified, payload, status, receivedAt: Date.now(), host, body, signatureHeaders });
      res.statusCode = status;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    acceptedCount: (webhookId) =>
      received.filter((r) => r.webhookId === webhookId && r.status >= 200 && r.status < 300).length,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
