import { readdir, readFile } from "node:fs/promises";

/** Field 5 of /proc/<pid>/stat is the process group; the command name before it may hold spaces. */
function processGroupOf(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[2]);
}

/**
 * Resident memory (VmRSS, in MiB) of every process in a process group: a managed child is the
 * leader of its own group, so this counts whatever it forked too. Null when the group is gone.
 */
export async function groupRssMiB(pgid: number): Promise<number | null> {
  let totalKb = 0;
  let found = false;
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (processGroupOf(await readFile(`/proc/${entry}/stat`, "utf8")) !== pgid) continue;
      const status = await readFile(`/proc/${entry}/status`, "utf8");
      const kb = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? 0);
      totalKb += kb;
      found = true;
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return found ? totalKb / 1024 : null;
}
