import { type ChildProcess, spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { chromium, type Page } from "@playwright/test";
import { DEMO_PASSWORD } from "../lib/services/admin/seed-demo-users";

// npm run screenshots: the README's pictures of the console, taken the way the browser tests see
// the product. It starts the server exactly as playwright.config.ts does (scripts/e2e-server.ts: a
// fresh embedded database with the demo data, a build of its own, the simulator, no worker loop so
// the cases stay as seeded), signs in through the sign-in form as a demo user, and writes
// docs/screenshots/queue.png and case.png at 1280×800. Everything it started is stopped and removed.

const OUT = path.resolve("docs/screenshots");
const VIEWPORT = { width: 1280, height: 800 };
const USER = "reviewer@demo.local";
const CASE = "demo-order-1000";
const START_TIMEOUT_MS = 300_000;

const { default: config } = await import("../playwright.config");
const configured = config.webServer;
if (!configured || Array.isArray(configured) || !configured.url)
  throw new Error("playwright.config.ts has no webServer");
const server = { command: configured.command, env: configured.env, url: configured.url };
const baseURL = String(config.use?.baseURL);
const log = (message: string) => console.log(`[screenshots] ${message}`);

/** The same command and environment Playwright uses, in a process group of its own to stop it whole. */
function startServer(): ChildProcess {
  log(`starting the product at ${baseURL} (first build takes a few minutes)…`);
  return spawn(server.command, {
    shell: true,
    detached: true,
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, ...server.env },
  });
}

async function waitUntilUp(child: ChildProcess, url: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited (code ${child.exitCode}) before it answered`);
    const ok = await fetch(url).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  throw new Error(`${url} did not answer within ${START_TIMEOUT_MS / 1000} s`);
}

/** SIGTERM to the group (the launcher stops its children and the database), SIGKILL if it hangs. */
async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-(child.pid as number), name);
    } catch {
      // already gone
    }
  };
  signal("SIGTERM");
  const timeout = setTimeout(() => signal("SIGKILL"), 30_000);
  await exited;
  clearTimeout(timeout);
}

/** Live pages keep polling, so "quiet" is best effort; the visible content is what is awaited. */
async function settle(page: Page): Promise<void> {
  await page.waitForLoadState("networkidle", { timeout: 10_000 }).catch(() => undefined);
  await page.evaluate(() => document.fonts.ready);
}

async function takeScreenshots(): Promise<void> {
  const browser = await chromium.launch(config.use?.launchOptions);
  try {
    const page = await browser.newPage({ baseURL, viewport: VIEWPORT, deviceScaleFactor: 1 });
    await page.goto("/sign-in");
    await page.getByLabel("Email").fill(USER);
    await page.getByLabel("Password").fill(DEMO_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByTestId("signed-in-user").waitFor();

    await page.goto("/queue");
    const caseLink = page.getByRole("link", { name: CASE, exact: true });
    await caseLink.waitFor();
    await settle(page);
    await page.screenshot({ path: path.join(OUT, "queue.png") });
    log("wrote docs/screenshots/queue.png");

    await caseLink.click();
    await page.getByRole("heading", { level: 1 }).filter({ hasText: CASE }).waitFor();
    await settle(page);
    await page.screenshot({ path: path.join(OUT, "case.png") });
    log("wrote docs/screenshots/case.png");
  } finally {
    await browser.close();
  }
}

await mkdir(OUT, { recursive: true });
const child = startServer();
let failed = false;
try {
  await waitUntilUp(child, server.url);
  await takeScreenshots();
} catch (error) {
  failed = true;
  console.error(`[screenshots] ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await stopServer(child);
}
process.exit(failed ? 1 : 0);
