import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type ChildExit, Children } from "@/scripts/launcher/children";
import { startSimulatorChild } from "@/scripts/launcher/simulator-child";

// The launcher's pieces with real child processes: the simulator binds its own port (the next one
// when the preferred port is taken) and reports what it bound; a child that dies is reported at once.
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Something else owning a port, as when another program took it during the launcher's build. */
async function occupy(): Promise<{ port: number; server: Server }> {
  const server = createServer((socket) => socket.end("not the simulator\n"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as { port: number }).port, server };
}

function simulatorEnv(port: number): NodeJS.ProcessEnv {
  return { ...process.env, SIMULATOR_PORT: String(port), SIMULATOR_TOKEN: "" };
}

async function answersAsSimulator(url: string): Promise<boolean> {
  const response = await fetch(`${url}/__admin/stats`);
  return response.ok && "creates" in ((await response.json()) as object);
}

describe("the provider simulator binds its port itself", () => {
  it("with its preferred port taken, listens on another and says which (the script's own output)", async () => {
    const taken = await occupy();
    // One process (no tsx wrapper between), so the cleanup's kill reaches the simulator itself.
    const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "scripts/simulator.ts"], {
      env: simulatorEnv(taken.port),
      stdio: ["ignore", "pipe", "pipe"],
    });
    cleanups.push(() => {
      child.kill("SIGKILL");
    });
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(out);
        if (match?.[1]) resolve(match[1]);
      });
      child.once("exit", (code) => reject(new Error(`simulator exited with ${code} before listening`)));
    });
    expect(new URL(url).port).not.toBe(String(taken.port));
    expect(await answersAsSimulator(url)).toBe(true);
  });

  it("reports the bound address to the launcher over IPC, and the launcher uses exactly that", async () => {
    const taken = await occupy();
    const children = new Children(() => {});
    cleanups.push(() => children.stopAll(2_000));
    const url = await startSimulatorChild(children, simulatorEnv(taken.port));
    expect(new URL(url).port).not.toBe(String(taken.port));
    expect(await answersAsSimulator(url)).toBe(true);
  });

  it("rejects when the simulator dies before it listens, so the launcher goes no further", async () => {
    const children = new Children(() => {});
    cleanups.push(() => children.stopAll(2_000));
    await expect(startSimulatorChild(children, { ...process.env, SIMULATOR_PORT: "not-a-port" })).rejects.toThrow(
      /exited .* before it listened/,
    );
  });
});

describe("children of the launcher", () => {
  it("report an unexpected exit at once, and stopAll leaves none running", async () => {
    const exits: ChildExit[] = [];
    const children = new Children((exit) => exits.push(exit));
    const longLived = children.spawn("server", ["-e", "setInterval(() => {}, 1000)"], process.env);
    const dying = children.spawn("worker", ["-e", "setTimeout(() => process.exit(3), 100)"], process.env);
    children.spawn("build", ["-e", "process.exit(0)"], process.env, { oneShot: true });
    await new Promise((resolve) => dying.once("exit", resolve));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(exits).toEqual([{ name: "worker", code: 3, signal: null }]);

    await children.stopAll(2_000);
    expect(longLived.exitCode !== null || longLived.signalCode !== null).toBe(true);
    // Stopping is not a failure: no further report.
    expect(exits).toHaveLength(1);
  });

  it("kills what does not stop on SIGTERM once the grace period is over", async () => {
    const children = new Children(() => {});
    const stubborn = children.spawn(
      "worker",
      ["-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"],
      process.env,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    await children.stopAll(500);
    expect(stubborn.signalCode).toBe("SIGKILL");
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
