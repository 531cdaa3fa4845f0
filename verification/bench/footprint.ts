import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { chromium } from "@playwright/test";
import pg from "pg";
import { createPrismaClient } from "../../lib/db/client";
import type { Role } from "../../lib/domain/roles";
import { createAccessToken } from "../../lib/services/access/create-access-token";
import { parkCase } from "../../lib/services/case/park-case";
import { parkBody } from "./lib/app-ingest-bodies";
import { appServer, partsServed, sessionCookie, stopAppServer, treeRss } from "./lib/app-server";
import type { BenchCheck, BenchPart, BenchRow } from "./lib/types";

/**
 * Part 6: what the product costs to keep running. Resident memory of the app server (the one that
 * served the ingest burst and the million-case console, when those parts ran) and of a worker
 * process after a few ticks; and the JavaScript each console page makes the browser download,
 * gzipped, counted from the requests a real browser makes while the page loads.
 */
const MB = 1024 * 1024;
const ROUTES = [
  "/sign-in",
  "/overview",
  "/queue",
  "/cases/:case",
  "/finance",
  "/admin",
  "/admin/users",
  "/admin/api-keys",
  "/admin/worker-tokens",
  "/admin/prices",
  "/profile",
];
const BROWSER = ["/usr/lib/chromium/chromium", "/usr/bin/chromium"].find((p) => existsSync(p));

async function adminUser(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const email = "footprint-admin@example.com";
    const roles: Role[] = ["operator", "reviewer", "finance", "admin"];
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO users (email, name, roles) VALUES ($1, 'Footprint', $2::"Role"[])
       ON CONFLICT (email) DO UPDATE SET roles = excluded.roles RETURNING id`,
      [email, roles],
    );
    const { rows: cases } = await client.query<{ id: string }>("SELECT id FROM cases ORDER BY opened_at DESC LIMIT 1");
    return { id: rows[0]?.id ?? "", email, name: "Footprint", roles, caseId: cases[0]?.id ?? null };
  } finally {
    await client.end();
  }
}

/** Every script the page loads (first paint and what it pulls in after), gzipped, in bytes. */
async function scriptBytes(baseUrl: string, cookie: string | null, routes: string[]) {
  const browser = await chromium.launch({
    ...(BROWSER ? { executablePath: BROWSER } : {}),
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
  });
  try {
    const context = await browser.newContext();
    const [name, value] = (cookie ?? "").split(/=(.*)/s);
    if (cookie && name && value) {
      await context.addCookies([{ name, value, url: baseUrl, httpOnly: true, sameSite: "Lax" }]);
    }
    const result: { route: string; status: number; bytes: number; scripts: number }[] = [];
    for (const route of routes) {
      const page = await context.newPage();
      const scripts = new Map<string, Promise<number>>();
      page.on("response", (response) => {
        const url = response.url();
        if (!url.startsWith(baseUrl) || !/\.js(\?|$)/.test(new URL(url).pathname + new URL(url).search)) return;
        if (scripts.has(url)) return;
        // A response that lands after the page closed was not part of its load.
        scripts.set(
          url,
          response.body().then(
            (body) => gzipSync(body, { level: 9 }).length,
            () => 0,
          ),
        );
      });
      const response = await page.goto(`${baseUrl}${route}`, { waitUntil: "networkidle", timeout: 60_000 });
      const bytes = (await Promise.all(scripts.values())).reduce((a, b) => a + b, 0);
      result.push({ route, status: response?.status() ?? 0, bytes, scripts: scripts.size });
      await page.close();
    }
    return result;
  } finally {
    await browser.close();
  }
}

/** `scripts/worker.ts` against the server for a few ticks; its resident memory just before it stops. */
async function workerRss(serverUrl: string, databaseUrl: string) {
  const prisma = createPrismaClient(databaseUrl, 1);
  const token = await createAccessToken(prisma, "cli", { kind: "worker", name: "footprint-worker" }).finally(() =>
    prisma.$disconnect(),
  );
  const worker = spawn(process.execPath, [path.resolve("node_modules/tsx/dist/cli.mjs"), "scripts/worker.ts"], {
    env: {
      ...process.env,
      APP_URL: serverUrl,
      WORKER_TOKEN: token.secret,
      WORKER_ID: "footprint-worker",
      WORKER_INTERVAL_MS: "500",
      WORKER_MAX_TASKS: "2",
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let errors = "";
  worker.stderr?.on("data", (chunk: Buffer) => {
    errors += chunk.toString();
  });
  await new Promise((resolve) => setTimeout(resolve, 6_000));
  const rss = await treeRss(worker.pid ?? 0);
  worker.kill("SIGTERM");
  const code = await new Promise<number>((resolve) => {
    const killer = setTimeout(() => worker.kill("SIGKILL"), 30_000);
    worker.once("exit", (exitCode) => {
      clearTimeout(killer);
      resolve(exitCode ?? 1);
    });
  });
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const used = await client
    .query<{ used: boolean }>("SELECT last_used_at IS NOT NULL AS used FROM access_tokens WHERE id = $1", [token.id])
    .finally(() => client.end());
  return { rss, code, ticked: used.rows[0]?.used === true, errors: errors.trim().split("\n").slice(-2).join(" | ") };
}

const part: BenchPart = {
  name: "footprint",
  async run(ctx) {
    const server = await appServer(ctx, "footprint");
    const served = partsServed().filter((name) => name !== "footprint");
    const admin = await adminUser(server.databaseUrl);
    if (!admin.caseId) {
      // Run on its own, the server has no case yet: park one so the case page has something to show.
      const prisma = createPrismaClient(server.databaseUrl, 1);
      const producer = { kind: "api_key" as const, apiKeyId: randomUUID(), name: "footprint-shop" };
      admin.caseId = (
        await parkCase(prisma, producer, parkBody("footprint", 1)).finally(() => prisma.$disconnect())
      ).caseId;
    }
    const cookie = await sessionCookie(server, admin);
    const routes = ROUTES.map((route) =>
      route.replace(":case", admin.caseId ?? "00000000-0000-4000-8000-000000000000"),
    );
    const pages = [
      ...(await scriptBytes(server.url, null, routes.slice(0, 1))),
      ...(await scriptBytes(server.url, cookie, routes.slice(1))),
    ];
    for (const page of pages)
      ctx.log(
        `footprint: ${page.route} ${page.status}, ${page.scripts} scripts, ${(page.bytes / 1024).toFixed(0)} KB gzip`,
      );
    const worker = await workerRss(server.url, server.databaseUrl);
    ctx.log(`footprint: worker ${(worker.rss / MB).toFixed(0)} MB, exit ${worker.code}, ticked ${worker.ticked}`);
    const serverRss = await server.rss();
    ctx.log(`footprint: app server ${(serverRss / MB).toFixed(0)} MB after ${served.join(", ") || "no other part"}`);
    await stopAppServer();

    const rows: BenchRow[] = [
      {
        part: "footprint",
        metric: `app server resident memory (after ${served.length > 0 ? served.join(" and ") : "no load: run with parts 4–5"})`,
        value: serverRss / MB,
        unit: "MB",
        better: "lower",
        target: "< 400 MB",
      },
      {
        part: "footprint",
        metric: "worker process resident memory (a few ticks)",
        value: worker.rss / MB,
        unit: "MB",
        better: "lower",
      },
      ...pages.map(
        (page): BenchRow => ({
          part: "footprint",
          metric: `JS loaded by ${page.route.replace(/[0-9a-f-]{36}/, "[id]")} (gzip)`,
          value: page.bytes / 1024,
          unit: "KB",
          better: "lower",
          target: "< 250 KB",
        }),
      ),
    ];
    const checks: BenchCheck[] = [
      {
        part: "footprint",
        name: "every measured page rendered (200) for a signed-in admin (sign-in page signed out)",
        ok: pages.every((page) => page.status === 200 && page.scripts > 0),
        detail: pages.map((page) => `${page.route.replace(/[0-9a-f-]{36}/, "[id]")} ${page.status}`).join(", "),
      },
      {
        part: "footprint",
        name: "the worker authenticated and ticked, then stopped cleanly on SIGTERM",
        ok: worker.ticked && worker.code === 0,
        detail: `exit ${worker.code}${worker.errors ? `; last errors: ${worker.errors.slice(0, 200)}` : ""}`,
      },
    ];
    return { rows, checks };
  },
};

export default part;
