import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { SIMULATOR_PROVIDERS } from "../simulator/providers";

const BY_PREFIX = new Map(
  Object.values(SIMULATOR_PROVIDERS).flatMap((provider) =>
    Object.keys(provider.routes).map((prefix) => [prefix, provider]),
  ),
);

export type ProviderCall = "status" | "result" | "download" | "create" | "other";
export type JobCalls = { status: number[]; result: number[]; download: number[] };

/** Which job a provider-facing request was about, and what it was, from its method and path. */
export function classifyRequest(method: string, path: string): { call: ProviderCall; jobId?: string } {
  const parts = path.split("/").filter(Boolean);
  const [prefix] = parts;
  if (method === "POST") return { call: prefix === "__admin" ? "other" : "create" };
  const provider = prefix === undefined ? undefined : BY_PREFIX.get(prefix);
  const read = provider?.classify(parts);
  if (read) return read;
  if (prefix === "delivery" && parts.length === 4) return { call: "download", jobId: parts[2] };
  return { call: "other" };
}

type LoggedRequest = { method: string; path: string; atMs: number };

/** Per-job call times and totals by kind of call, from the simulator's log entries. */
export function tallyRequests(entries: Iterable<LoggedRequest>) {
  const byJob = new Map<string, JobCalls>();
  const totals: Record<ProviderCall, number> = { status: 0, result: 0, download: 0, create: 0, other: 0 };
  for (const entry of entries) {
    const { call, jobId } = classifyRequest(entry.method, entry.path);
    totals[call] += 1;
    if (!jobId || call === "create" || call === "other") continue;
    let calls = byJob.get(jobId);
    if (!calls) {
      calls = { status: [], result: [], download: [] };
      byJob.set(jobId, calls);
    }
    calls[call].push(entry.atMs);
  }
  return { byJob, totals };
}

/** Reads the simulator's full request log (one JSON line per request) into per-job call times. */
export async function readRequestLog(file: string) {
  const entries: LoggedRequest[] = [];
  for await (const line of createInterface({ input: createReadStream(file) })) {
    if (line) entries.push(JSON.parse(line) as LoggedRequest);
  }
  return tallyRequests(entries);
}
