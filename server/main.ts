import { createServer } from "node:http";
import next from "next";

/**
 * The app's HTTP entry: Next.js for every page and route, except the bearer-token routes programs
 * hit in bursts, which get the same handlers without Next's router in front (about 1.2 ms of CPU
 * per request on a 2-core VM; docs/decisions/009-direct-api-routes.md).
 */
const dev = process.argv.includes("--dev");
const port = Number(process.env.PORT ?? 3000);
const app = next({ dev, dir: process.cwd(), port });
const handle = app.getRequestHandler();
await app.prepare();
// Route modules need the runtime Next.js sets up in prepare() (its AsyncLocalStorage): load them after.
const { serveDirect } = await import("./serve-direct");

const server = createServer((req, res) => {
  if (!serveDirect(req, res)) void handle(req, res);
});
if (dev) server.on("upgrade", app.getUpgradeHandler());
server.listen(port, () => console.log(`[server] listening on http://localhost:${port}${dev ? " (dev)" : ""}`));

function stop() {
  server.close(() => process.exit(0));
  server.closeIdleConnections();
  setTimeout(() => process.exit(0), 5_000).unref();
}
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
