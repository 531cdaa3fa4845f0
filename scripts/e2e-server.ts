import { rm } from "node:fs/promises";

// Browser tests run against a fresh embedded database of their own, never a configured one.
delete process.env.DATABASE_URL;
delete process.env.AUTH_SECRET;
await rm(process.env.DATA_DIR ?? ".data/e2e", { recursive: true, force: true });
await import("./start");
