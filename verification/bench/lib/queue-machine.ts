import { readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import pg from "pg";

/**
 * CPU accounting around one measurement (Linux /proc; elsewhere the figures are absent): how much
 * CPU the benchmark's own PostgreSQL used, and how much of the machine other people's work took
 * meanwhile, so a run squeezed by a neighbour can be told apart and repeated.
 */
const TICKS_PER_SECOND = 100;

function procStat(pid: number | "self") {
  const text = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = text
    .slice(text.lastIndexOf(")") + 2)
    .split(" ")
    .map(Number);
  const [, ppid = 0] = fields;
  const [utime = 0, stime = 0, cutime = 0, cstime = 0] = fields.slice(11, 15);
  return { ppid, own: utime + stime, children: cutime + cstime };
}

/** The postmaster behind `url`, if it runs on this machine: the parent of our own backend. */
export async function postmasterOf(url: string): Promise<number | undefined> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    const pid = rows[0]?.pid;
    return pid ? procStat(pid).ppid : undefined;
  } catch {
    return undefined;
  } finally {
    await client.end();
  }
}

/** The server's processes: the postmaster's own and reaped CPU ticks, and its live children's. */
function serverProcesses(postmaster: number): { ticks: number; children: number } {
  const main = procStat(postmaster);
  let ticks = main.own + main.children;
  let children = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const child = procStat(Number(entry));
      if (child.ppid !== postmaster) continue;
      ticks += child.own;
      children++;
    } catch {}
  }
  return { ticks, children };
}

/** CPU seconds of the server so far: the postmaster, the backends it reaped, the live ones. */
const serverSeconds = (postmaster: number) => serverProcesses(postmaster).ticks / TICKS_PER_SECOND;

/**
 * Waits (up to 5 s) until the server's process count has held still for 300 ms: a backend leaving
 * after its client closed spends CPU on its way out, which belongs to no later measurement.
 */
async function serverSettled(postmaster: number | undefined): Promise<void> {
  if (!postmaster) return;
  const deadline = Date.now() + 5_000;
  let last = serverProcesses(postmaster).children;
  let stillSince = Date.now();
  while (Date.now() < deadline && Date.now() - stillSince < 300) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = serverProcesses(postmaster).children;
    if (now !== last) [last, stillSince] = [now, Date.now()];
  }
}

function machineBusySeconds(): number {
  const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = cpu;
  return (user + nice + system + irq + softirq + steal) / TICKS_PER_SECOND;
}

const nodeSeconds = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
};

export type Measured<T> = {
  value: T;
  /** CPU seconds the benchmark's PostgreSQL spent during the run. */
  serverCpu?: number;
  /** CPU seconds of this process (the load generator or client running in it). */
  ownCpu?: number;
  /** CPU seconds of the `helpers` processes. */
  helperCpu?: number;
  /** Share of the machine's cores that other processes kept busy during the run (0..1). */
  foreignShare?: number;
};

/** `helpers` are other processes of the benchmark itself (a simulator child), counted as ours. */
export async function measured<T>(
  postmaster: number | undefined,
  run: () => Promise<T>,
  helpers: number[] = [],
): Promise<Measured<T>> {
  const helperSeconds = () => helpers.reduce((sum, pid) => sum + procStat(pid).own / TICKS_PER_SECOND, 0);
  const sample = () => {
    try {
      const server = postmaster ? serverSeconds(postmaster) : 0;
      return { server, own: nodeSeconds(), helpers: helperSeconds(), busy: machineBusySeconds() };
    } catch {
      return undefined;
    }
  };
  await serverSettled(postmaster);
  const before = sample();
  const started = performance.now();
  const value = await run();
  const wall = (performance.now() - started) / 1000;
  const after = sample();
  if (!before || !after || !postmaster) return { value };
  const serverCpu = after.server - before.server;
  const ownCpu = after.own - before.own;
  const helperCpu = after.helpers - before.helpers;
  const foreign = Math.max(0, after.busy - before.busy - serverCpu - ownCpu - helperCpu);
  return { value, serverCpu, ownCpu, helperCpu, foreignShare: Math.min(1, foreign / (os.cpus().length * wall)) };
}
