import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Db } from "@/lib/db/client";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { serveDirect } from "@/server/serve-direct";

/**
 * The app's producer API as a producer meets it: the route table's direct entries served over real
 * HTTP on a loopback port, and an API key of `producer`'s. The SDK (or any client) talks to `url`.
 */
export async function startProducerApp(db: Db, producer: string) {
  const { secret: apiKey } = await createAccessToken(db, "cli", { kind: "api_key", name: producer });
  const server = createServer((req, res) => {
    if (serveDirect(req, res)) return;
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    apiKey,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
