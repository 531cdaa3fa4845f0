import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export type PlainReceiver = {
  url: string;
  received: { body: unknown; headers: Record<string, string | string[] | undefined> }[];
  stop(): Promise<void>;
};

/** A Slack-compatible incoming webhook: accepts any JSON POST with 200 and records it. */
export async function startPlainReceiver(): Promise<PlainReceiver> {
  const received: PlainReceiver["received"] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ body: JSON.parse(Buffer.concat(chunks).toString("utf8")), headers: req.headers });
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/services/T000/B000/slack`,
    received,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
