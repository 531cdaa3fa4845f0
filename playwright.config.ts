import { existsSync } from "node:fs";
import { defineConfig, devices } from "@playwright/test";

// Each run gets its own port, database and build directory, so two runs on one machine never
// collide; worker processes inherit the runner's environment and therefore the same values.
process.env.E2E_PORT ??= String(3100 + Math.floor(Math.random() * 800));
export const E2E_PORT = Number(process.env.E2E_PORT);
export const E2E_DATA_DIR = `.data/e2e-${E2E_PORT}`;
// The launcher starts the provider simulator here, so journeys can seed jobs through its control plane.
export const E2E_SIMULATOR_URL = `http://127.0.0.1:${20000 + E2E_PORT}`;

// Browsers cannot be downloaded here: use the system's Chromium (Debian package `chromium`).
const chromium = ["/usr/lib/chromium/chromium", "/usr/bin/chromium"].find((p) => existsSync(p));

export default defineConfig({
  testDir: "tests/e2e",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 30_000,
  reporter: [["list"], ["json", { outputFile: "test-reports/e2e.json" }]],
  use: {
    baseURL: `http://localhost:${E2E_PORT}`,
    trace: "retain-on-failure",
    launchOptions: {
      ...(chromium ? { executablePath: chromium } : {}),
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
  },
  projects: [{ name: "chromium", use: { ...devices["Desktop Chrome"] } }],
  webServer: {
    command: "npx tsx scripts/e2e-server.ts",
    url: `http://localhost:${E2E_PORT}/sign-in`,
    // The launcher builds the app first: minutes on a busy 2-core machine.
    timeout: 900_000,
    reuseExistingServer: false,
    gracefulShutdown: { signal: "SIGTERM", timeout: 15_000 },
    env: {
      PORT: String(E2E_PORT),
      DATA_DIR: E2E_DATA_DIR,
      NEXT_DIST_DIR: `.next-e2e-${E2E_PORT}`,
      EMBEDDED_PG_PORT: String(50000 + E2E_PORT),
      DEMO: "1",
      SIMULATOR_PORT: String(20000 + E2E_PORT),
      // Journeys drive the worker themselves where they need it, so nothing races the assertions.
      START_WORKER: "0",
    },
    stdout: "pipe",
  },
});
