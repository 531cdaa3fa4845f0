import { randomBytes, randomUUID } from "node:crypto";
import { createServer as createHttpServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseWebhookAllowList } from "@/lib/notify/webhook-allow-list";
import type { WebhookLookup } from "@/lib/notify/webhook-target";
import { dispatchNotifications } from "@/lib/worker/dispatch-notifications";
import type { WorkerContext } from "@/lib/worker/worker-context";
import { startWebhookReceiver, type WebhookReceiver } from "./helpers/webhook-receiver";
import { testWorkerContext } from "./helpers/worker-context";
import { openTestDb } from "./setup/test-db";

// The worker checks a webhook's address when it sends, and connects to the address it checked.
const { db } = openTestDb();
const secret = `whsec_${randomBytes(32).toString("base64")}`;
let receiver: WebhookReceiver;
/** Counts TCP connections: a refused send must not even connect. */
let listener: TcpServer;
let connections = 0;
let listenerPort = 0;
const NO_EXCEPTIONS = parseWebhookAllowList("");

const portOf = (server: Server | TcpServer) => (server.address() as AddressInfo).port;

beforeAll(async () => {
  receiver = await startWebhookReceiver(secret);
  listener = createTcpServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  listenerPort = portOf(listener);
});
afterAll(async () => {
  await receiver.stop();
  await new Promise<void>((resolve) => listener.close(() => resolve()));
});

async function context(overrides: Partial<WorkerContext>): Promise<WorkerContext> {
  // The provider adapters are not used by notifications; the simulator address is never called.
  return testWorkerContext(db, "http://127.0.0.1:9", overrides);
}

/** One queued message to an endpoint at `url`, sent by one dispatch; returns its row afterwards. */
async function sendOnce(url: string, ctx: WorkerContext) {
  const producer = `ssrf-${randomUUID().slice(0, 8)}`;
  await db.notificationEndpoint.create({ data: { producer, url, signingSecret: secret } });
  const id = `msg_${randomUUID().replaceAll("-", "")}`;
  await db.notificationOutbox.create({
    data: {
      id,
      producer,
      eventType: "case.delivered",
      payload: { type: "case.delivered" },
      nextAttemptAt: new Date(0),
    },
  });
  await dispatchNotifications(ctx, Date.now() + 15_000);
  return db.notificationOutbox.findUniqueOrThrow({ where: { id } });
}

describe("webhook addresses, checked at send time", () => {
  it.each([
    ["https to 127.0.0.1", () => `https://127.0.0.1:${listenerPort}/hooks`, /refused: .*loopback/],
    ["plain http to 127.0.0.1", () => `http://127.0.0.1:${listenerPort}/hooks`, /refused: .*https/],
    ["loopback written as a number", () => `https://2130706433:${listenerPort}/hooks`, /refused: .*loopback/],
    ["IPv4-mapped loopback", () => `https://[::ffff:7f00:1]:${listenerPort}/hooks`, /refused: .*IPv4-mapped/],
    ["localhost", () => `https://localhost:${listenerPort}/hooks`, /refused: .*this machine/],
    ["the cloud metadata address", () => "https://169.254.169.254/latest/meta-data/", /refused: .*metadata/],
    ["a metadata host name", () => "https://metadata.google.internal/computeMetadata/v1/", /refused: .*metadata/],
  ])("refuses %s without an allow-list, connecting nowhere, and retries later", async (_name, url, reason) => {
    const before = connections;
    const row = await sendOnce(url(), await context({ webhookAllowList: NO_EXCEPTIONS }));
    expect(connections).toBe(before);
    expect(row.deliveredAt).toBeNull();
    expect(row.lastStatus).toBeNull();
    expect(row.lastError).toMatch(reason);
    // A refusal is an ordinary failed attempt: backed off, not given up, not due again at once.
    expect(row.giveUpAt).toBeNull();
    expect(row.nextAttemptAt.getTime()).toBeGreaterThan(Date.now() + 5_000);
  });

  it("refuses a name that resolves to a private address, or to a private one among public ones", async () => {
    const answers: Record<string, { address: string; family: number }[]> = {
      "hooks.partner.example": [{ address: "10.1.2.3", family: 4 }],
      "mixed.partner.example": [
        { address: "93.184.215.14", family: 4 },
        { address: "127.0.0.1", family: 4 },
      ],
      "six.partner.example": [{ address: "fd12:3456::1", family: 6 }],
    };
    const lookup: WebhookLookup = async (name) => answers[name] ?? [];
    const ctx = await context({ webhookAllowList: NO_EXCEPTIONS, webhookLookup: lookup });
    const before = connections;
    const reasons = [];
    for (const name of Object.keys(answers)) {
      reasons.push((await sendOnce(`https://${name}:${listenerPort}/hooks`, ctx)).lastError);
    }
    expect(reasons).toEqual([
      "refused: hooks.partner.example resolves to 10.1.2.3, a private address",
      "refused: mixed.partner.example resolves to 127.0.0.1, a loopback address",
      expect.stringMatching(/^refused: six\.partner\.example resolves to .*, a unique-local address$/),
    ]);
    expect(connections).toBe(before);
  });

  it("delivers to a receiver on the allow-list", async () => {
    const row = await sendOnce(receiver.url, await context({ webhookAllowList: parseWebhookAllowList("127.0.0.1") }));
    expect(row.deliveredAt).not.toBeNull();
    expect(receiver.received.find((r) => r.webhookId === row.id)).toMatchObject({ verified: true, status: 200 });
  });

  it("connects to the address it checked: one lookup, the endpoint's name kept in the Host header", async () => {
    let lookups = 0;
    // The system resolver knows no such name: the connection can only go where this one lookup said.
    const lookup: WebhookLookup = async () => {
      lookups += 1;
      return [{ address: "127.0.0.1", family: 4 }];
    };
    const port = new URL(receiver.url).port;
    const ctx = await context({ webhookAllowList: parseWebhookAllowList("receiver.invalid"), webhookLookup: lookup });
    const row = await sendOnce(`http://receiver.invalid:${port}/hooks`, ctx);
    expect(row.deliveredAt).not.toBeNull();
    expect(lookups).toBe(1);
    expect(receiver.received.find((r) => r.webhookId === row.id)?.host).toBe(`receiver.invalid:${port}`);
  });

  it("does not follow a redirect, even to an allowed receiver", async () => {
    const redirector = createHttpServer((_req, res) => {
      res.writeHead(302, { location: receiver.url }).end();
    });
    await new Promise<void>((resolve) => redirector.listen(0, "127.0.0.1", resolve));
    try {
      const before = receiver.received.length;
      const ctx = await context({ webhookAllowList: parseWebhookAllowList("127.0.0.1") });
      const row = await sendOnce(`http://127.0.0.1:${portOf(redirector)}/hooks`, ctx);
      expect(row.deliveredAt).toBeNull();
      expect(row.lastStatus).toBe(302);
      expect(receiver.received.length).toBe(before);
    } finally {
      await new Promise<void>((resolve) => redirector.close(() => resolve()));
    }
  });
});
