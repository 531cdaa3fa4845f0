import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { connect } from "node:net";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { savedSuperuserUrl } from "@/lib/db/saved-superuser";

// The real launcher (`npm run dev`: embedded PostgreSQL, migrations, demo seed, simulator, server,
// worker loop), stopped with SIGINT to its process group as a terminal's Ctrl-C does: every child
// is gone when the launcher exits, and PostgreSQL stops only after all of them. The console binds
// the loopback interface only, unless HOST says otherwise.
const run = randomBytes(3).toString("hex");
const dataDir = path.resolve(".data", `launcher-test-${run}`);
const distDir = `.next-e2e-launcher-${run}`;
const tsconfig = `tsconfig.next-e2e-launcher-${run}.json`;
const port = 3900 + Math.floor(Math.random() * 90);
let launcher: ChildProcess | undefined;

afterAll(async () => {
  if (launcher?.pid && launcher.exitCode === null) process.kill(-launcher.pid, "SIGKILL");
  await rm(dataDir, { recursive: true, force: true });
  await rm(distDir, { recursive: true, force: true });
  await rm(tsconfig, { force: true });
});

/** pid -> parent pid and state for every process, from /proc. */
function processTable(): Map<number, { ppid: number; state: string }> {
  const table = new Map<number, { ppid: number; state: string }>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // "pid (comm) state ppid ...": comm may hold spaces, so read after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      table.set(Number(entry), { ppid: Number(ppid), state: state ?? "?" });
    } catch {}
  }
  return table;
}

function descendants(root: number, table = processTable()): number[] {
  const found: number[] = [];
  const queue = [root];
  while (queue.length) {
    const parent = queue.shift() as number;
    for (const [pid, info] of table) {
      if (info.ppid === parent && !found.includes(pid)) {
        found.push(pid);
        queue.push(pid);
      }
    }
  }
  return found;
}

/** Local addresses with a listening TCP socket on `port` (from /proc/net/tcp and tcp6). */
function listeningAddresses(port: number): string[] {
  const found: string[] = [];
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of readFileSync(file, "utf8").split("\n").slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state !== "0A" || !local) continue;
      const [hex, portHex] = local.split(":");
      if (Number.parseInt(portHex ?? "", 16) !== port || !hex) continue;
      found.push(
        hex.length === 8
          ? (hex.match(/../g) ?? [])
              .reverse()
              .map((byte) => Number.parseInt(byte, 16))
              .join(".")
          : `ipv6:${hex}`,
      );
    }
  }
  return found;
}

/** null when the database answers a query, else why not. */
async function databaseRefuses(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT 1");
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

const alive = (pid: number, table: Map<number, { ppid: number; state: string }>) => {
  const info = table.get(pid);
  return info !== undefined && info.state !== "Z";
};

describe("the launcher on SIGINT", () => {
  it("stops every child, then PostgreSQL, and leaves nothing running", { timeout: 180_000 }, async () => {
    writeFileSync(tsconfig, `${JSON.stringify({ extends: "./tsconfig.json" }, null, 2)}\n`);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DEMO: "1",
      DATA_DIR: dataDir,
      PORT: String(port),
      EMBEDDED_PG_PORT: String(56100 + Math.floor(Math.random() * 800)),
      SIMULATOR_PORT: String(24100 + Math.floor(Math.random() * 800)),
      NEXT_DIST_DIR: distDir,
      NEXT_TSCONFIG: tsconfig,
      WORKER_LOG: "0",
      // Between ticks the worker waits this long: a stop must not wait for it (the 40 s straggler).
      WORKER_INTERVAL_MS: "30000",
    };
    delete env.DATABASE_URL;
    delete env.AUTH_SECRET;
    // Its own process group, as a terminal runs a foreground job: Ctrl-C signals the whole group.
    // As `npm run dev` runs it: through tsx's CLI, which relays signals to its own child once more.
    launcher = spawn(process.execPath, [path.resolve("node_modules/tsx/dist/cli.mjs"), "scripts/start.ts", "--dev"], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const child = launcher;
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exitedAt = new Promise<number>((resolve) => child.once("exit", () => resolve(Date.now())));

    // Up: every child spawned, the worker loop running (and backing off while the dev server compiles).
    const deadline = Date.now() + 150_000;
    while (!output.includes("Worker loop started.") && Date.now() < deadline && child.exitCode === null) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(output).toContain("Worker loop started.");
    while (!output.includes("[server] listening on") && Date.now() < deadline && child.exitCode === null) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // Loopback only by default: nothing listens on the console's port on any other address.
    expect(listeningAddresses(port)).toEqual(["127.0.0.1"]);
    expect(output).toContain(`[server] listening on http://127.0.0.1:${port}`);

    // A request whose body never comes keeps the server draining during the stop, as a slow
    // worker tick would: the database must stay up for it until the server is gone.
    const slow = connect({ host: "127.0.0.1", port });
    slow.on("error", () => {});
    slow.write(
      `POST /api/v1/cases HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    const pid = child.pid as number;
    const before = processTable();
    const tree = descendants(pid, before);
    const pidFile = readFileSync(path.join(dataDir, "pg", "postmaster.pid"), "utf8").split("\n");
    const postmaster = Number(pidFile[0]);
    const databaseUrl = await savedSuperuserUrl(dataDir);
    const database = new Set([postmaster, ...descendants(postmaster, before)]);
    // The launcher itself (the relay and the core that started PostgreSQL) ends last by design.
    const launcherItself = new Set<number>();
    for (let p = before.get(postmaster)?.ppid; p && p !== pid; p = before.get(p)?.ppid) launcherItself.add(p);
    const others = tree.filter((p) => !database.has(p) && !launcherItself.has(p));
    expect(tree).toContain(postmaster);
    // server, simulator and worker (each under its own tsx or node process)
    expect(others.length).toBeGreaterThanOrEqual(3);

    const goneAt = new Map<number, number>();
    process.kill(-pid, "SIGINT");
    // Impatient people press Ctrl-C twice; the second must not cut the ordered stop short.
    setTimeout(() => {
      try {
        process.kill(-pid, "SIGINT");
      } catch {}
    }, 300);
    let launcherExit = 0;
    void exitedAt.then((at) => {
      launcherExit = at;
    });
    const refusedWhileChildrenRan: string[] = [];
    const watchUntil = Date.now() + 60_000;
    while (Date.now() < watchUntil) {
      const table = processTable();
      for (const p of tree) if (!goneAt.has(p) && !alive(p, table)) goneAt.set(p, Date.now());
      if (others.some((p) => !goneAt.has(p))) {
        const refusal = await databaseRefuses(databaseUrl);
        if (refusal && others.some((p) => alive(p, processTable()))) refusedWhileChildrenRan.push(refusal);
      }
      if (launcherExit && goneAt.size === tree.length) break;
      if (launcherExit && Date.now() - launcherExit > 5_000) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }

    expect(launcherExit).toBeGreaterThan(0);
    const leftAfterLauncher = tree.filter((p) => !goneAt.has(p) || (goneAt.get(p) as number) > launcherExit + 100);
    slow.destroy();
    expect(refusedWhileChildrenRan).toEqual([]);
    expect(leftAfterLauncher, `still running after the launcher exited:\n${output.slice(-2000)}`).toEqual([]);
    const lastChild = Math.max(...others.map((p) => goneAt.get(p) as number));
    expect(goneAt.get(postmaster) as number).toBeGreaterThanOrEqual(lastChild);
    expect(output).toContain("Embedded PostgreSQL stopped.");
  });
});
