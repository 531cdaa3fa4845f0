import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { authenticateToken } from "@/lib/services/access/authenticate-token";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import {
  activeDemoCredentials,
  DEMO_WORKER_TOKEN_NAME,
  demoCredentialsRefusal,
  removeDemoCredentials,
} from "@/lib/services/admin/demo-credentials";
import { demoEmail, seedDemoUsers } from "@/lib/services/admin/seed-demo-users";
import { serverNodeArgs } from "@/server/node-args";
import { openTestDb } from "./setup/test-db";

// Data that once ran the demo, restarted as production: the server must not come up while the
// published accounts or the demo worker token still work, and must say how to remove them.
const { db, url } = openTestDb();
const secret = "demo-credentials-test-auth-secret-0123456789";

type Exit = { code: number | null; output: string };

/** Runs a command with a clean environment of our choosing; resolves when it exits (or kills it at `timeoutMs`). */
function runUntilExit(args: string[], env: Record<string, string | undefined>, timeoutMs: number): Promise<Exit> {
  const child = spawn(process.execPath, args, {
    env: env as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const timer = setTimeout(() => {
    if (child.pid) process.kill(-child.pid, "SIGKILL");
  }, timeoutMs);
  return new Promise((resolve) =>
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    }),
  );
}

function productionEnv(extra: Record<string, string> = {}): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: "production",
    DATABASE_URL: url,
    DEMO: "0",
    AUTH_SECRET: secret,
    PROVIDER_MODE: "live",
    REPLICATE_API_TOKEN: "r8_unused",
    PORT: String(3990 + Math.floor(Math.random() * 9)),
    // No build here: a server that got past the check would fail later, and differently.
    NEXT_DIST_DIR: `.next-e2e-demo-check-${process.pid}`,
    ...extra,
  };
}

describe("demo credentials in production", () => {
  it("the server refuses to start while they are active, naming them and the way to remove them", async () => {
    expect(await seedDemoUsers(db)).toBe(true);
    const token = await createAccessToken(db, "cli", { kind: "worker", name: DEMO_WORKER_TOKEN_NAME });
    expect(await authenticateToken(db, token.secret)).not.toBeNull();

    const started = await runUntilExit(serverNodeArgs(), productionEnv(), 60_000);
    expect(started.code).toBe(1);
    expect(started.output).toContain("Refusing to start in production");
    expect(started.output).toContain("admin@demo.local");
    expect(started.output).toContain(`"${DEMO_WORKER_TOKEN_NAME}"`);
    expect(started.output).toContain("npm run demo:remove");
    expect(started.output).not.toMatch(/listening on/);

    // The removal path: accounts deactivated without their password, token revoked; then nothing is left.
    const removed = await removeDemoCredentials(db);
    expect(removed.emails).toContain(demoEmail("admin"));
    expect(removed.workerTokenIds).toEqual([token.id]);
    expect(await authenticateToken(db, token.secret)).toBeNull();
    const admin = await db.user.findUniqueOrThrow({ where: { email: demoEmail("admin") } });
    expect(admin).toMatchObject({ active: false, passwordHash: null });
    expect(await activeDemoCredentials(db)).toEqual({ emails: [], workerTokenIds: [] });
    expect(await demoCredentialsRefusal(db)).toBeNull();
    // Idempotent, and the demo seed does not come back on this database.
    expect(await removeDemoCredentials(db)).toEqual({ emails: [], workerTokenIds: [] });
    expect(await seedDemoUsers(db)).toBe(false);

    const again = await runUntilExit(serverNodeArgs(), productionEnv(), 60_000);
    expect(again.output).not.toContain("Refusing to start in production");
  });

  it("a launcher with DATABASE_URL and no AUTH_SECRET refuses instead of seeding the demo accounts there", async () => {
    const before = await db.user.count();
    const launcher = await runUntilExit(
      ["--import", "tsx", path.resolve("scripts/start.ts")],
      {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DATABASE_URL: url,
        DATA_DIR: path.resolve(".data", `demo-check-${process.pid}`),
      },
      60_000,
    );
    expect(launcher.code).toBe(1);
    expect(launcher.output).toContain("DATABASE_URL is set but AUTH_SECRET is not");
    expect(await db.user.count()).toBe(before);
    expect(await db.user.count({ where: { email: { endsWith: "@demo.local" }, active: true } })).toBe(0);
  });
});
