import { connect } from "node:net";

export type SlowClientResult = {
  /** Who ended the connection: the server (what the timeouts are for) or this client giving up at `giveUpMs`. */
  closedBy: "server" | "client";
  afterMs: number;
  /** Everything the server wrote back (a 408 status line, or nothing). */
  reply: string;
};

/**
 * A client that sends a request a byte at a time: the head (request line and headers) when
 * `body` is absent, otherwise the head at once and then the body. It stops when the server
 * closes the connection, or gives up after `giveUpMs`.
 */
export function slowClient(
  port: number,
  request: { head: string; body?: string },
  options: { intervalMs: number; giveUpMs: number },
): Promise<SlowClientResult> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    let finished = false;
    const finish = (closedBy: "server" | "client") => {
      if (finished) return;
      finished = true;
      clearInterval(timer);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ closedBy, afterMs: Date.now() - started, reply: Buffer.concat(chunks).toString("latin1") });
    };
    const trickled = Buffer.from(request.body ?? request.head, "utf8");
    let sent = 0;
    const timer = setInterval(() => {
      if (sent < trickled.length && socket.writable) socket.write(trickled.subarray(sent, ++sent));
    }, options.intervalMs);
    const giveUp = setTimeout(() => finish("client"), options.giveUpMs);
    socket.on("connect", () => {
      if (request.body !== undefined) socket.write(request.head);
    });
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", () => finish("server"));
    socket.on("close", () => finish("server"));
  });
}
