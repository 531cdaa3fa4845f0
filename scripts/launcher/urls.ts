/**
 * The address a local client (the worker loop) uses to reach a server bound to `host`: the
 * loopback of the same family for a wildcard bind, the host itself otherwise.
 */
export function localUrl(host: string, port: number): string {
  if (host === "0.0.0.0") return `http://127.0.0.1:${port}`;
  if (host === "::" || host === "[::]") return `http://[::1]:${port}`;
  if (host.includes(":") && !host.startsWith("[")) return `http://[${host}]:${port}`;
  return `http://${host}:${port}`;
}
