/**
 * Download allow-list. A pattern is a host (`replicate.delivery`), a host with port
 * (`127.0.0.1:4010`) or a wildcard for subdomains only (`*.fal.media` does not match `fal.media`).
 * Plain http is accepted only when the adapter's own base URL is http (the local simulator), so a
 * production adapter never fetches an asset over an unencrypted connection.
 */
export type HostPolicy = { patterns: string[]; allowHttp: boolean };

export function hostPolicy(baseUrl: string, deliveryHosts: string[], override?: string[]): HostPolicy {
  const base = new URL(baseUrl);
  const patterns = override ?? [base.host, ...deliveryHosts];
  return { patterns: patterns.map((p) => p.toLowerCase()), allowHttp: base.protocol === "http:" };
}

export type HostCheck = { ok: true; url: URL } | { ok: false; detail: string };

export function checkDownloadUrl(raw: string, policy: HostPolicy): HostCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, detail: "not a valid URL" };
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && policy.allowHttp)) {
    return { ok: false, detail: `scheme ${url.protocol} is not allowed` };
  }
  if (url.username || url.password) return { ok: false, detail: "URLs with credentials are not allowed" };
  const host = url.host.toLowerCase();
  const hostname = url.hostname.toLowerCase();
  const allowed = policy.patterns.some((pattern) => matches(pattern, host, hostname));
  return allowed ? { ok: true, url } : { ok: false, detail: `host ${host} is not on the allow-list` };
}

function matches(pattern: string, host: string, hostname: string): boolean {
  const subject = pattern.includes(":") ? host : hostname;
  if (pattern.startsWith("*.")) return subject.endsWith(pattern.slice(1));
  return subject === pattern;
}
