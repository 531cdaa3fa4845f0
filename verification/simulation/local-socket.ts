import { existsSync } from "node:fs";

const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * The same PostgreSQL through its Unix socket when it runs on this machine: a simulation is a long
 * chain of small sequential queries, and a socket round trip costs less than one over loopback TCP.
 */
export function preferUnixSocket(url: string, socketDir = "/tmp"): string {
  const parsed = new URL(url);
  const port = parsed.port || "5432";
  if (!LOCAL_HOSTS.has(parsed.hostname) || !existsSync(`${socketDir}/.s.PGSQL.${port}`)) return url;
  parsed.searchParams.set("host", socketDir);
  return parsed.toString();
}
