import { formatIp, type IpAddress, parseIp, refusedAddressReason, refusedHostnameReason } from "./ip-address";
import { addressAllowed, hostAllowed, type WebhookAllowList } from "./webhook-allow-list";

/** Resolves a host name to every address it has (the worker's default is `dns.lookup` with `all`). */
export type WebhookLookup = (hostname: string) => Promise<{ address: string; family: number }[]>;

/** Where a webhook may go: the URL's host name (for TLS and the Host header) and the one address that was checked. */
export type VettedTarget = { url: URL; hostname: string; address: string; family: 4 | 6 };

export type Vetting = { ok: true; target: VettedTarget } | { ok: false; reason: string };

/** The URL's host without IPv6 brackets or a trailing dot, lower-cased. */
const bareHost = (url: URL) =>
  url.hostname
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.$/, "")
    .toLowerCase();

/**
 * What can be judged without resolving: the scheme, credentials, a literal address and names
 * that are local whatever they resolve to. Used when an admin saves an endpoint, and again
 * before every send. Null when nothing is wrong yet.
 */
export function webhookUrlProblem(raw: string, allow: WebhookAllowList): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "enter a full URL, e.g. https://example.com/hooks/video-recovery";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must be an https URL";
  if (url.username || url.password) return "must not contain a user name or password";
  const host = bareHost(url);
  if (!host) return "needs a host";
  // The URL parser has already turned forms like 2130706433 or 0x7f.1 into dotted decimal.
  const literal = parseIp(host);
  const listed = hostAllowed(allow, host) || (literal !== null && addressAllowed(allow, literal));
  if (url.protocol === "http:" && !listed) {
    return allow.entries.length ? `must use https (plain http only to ${allow.entries.join(", ")})` : "must use https";
  }
  if (listed) return null;
  const reason = literal ? refusedAddressReason(literal) : refusedHostnameReason(host);
  return reason ? `must not point at ${reason}` : null;
}

/**
 * Decides, at send time, the one address a webhook may be sent to. Every address the name
 * resolves to must be public (or inside the allow-list): a name that answers with a mix of a
 * public and a private address is refused, not tried until the private one comes up. The caller
 * connects to the returned address without resolving again, so a name cannot change its answer
 * between the check and the connection.
 */
export async function vetWebhookTarget(raw: string, allow: WebhookAllowList, lookup: WebhookLookup): Promise<Vetting> {
  const problem = webhookUrlProblem(raw, allow);
  if (problem) return { ok: false, reason: `the URL ${problem}` };
  const url = new URL(raw);
  const hostname = bareHost(url);
  const literal = parseIp(hostname);
  let addresses: IpAddress[];
  if (literal) {
    addresses = [literal];
  } else {
    let answers: { address: string }[];
    try {
      answers = await lookup(hostname);
    } catch (cause) {
      return {
        ok: false,
        reason: `${hostname} could not be resolved (${(cause as { code?: string }).code ?? "lookup failed"})`,
      };
    }
    addresses = answers.map((a) => parseIp(a.address)).filter((a): a is IpAddress => a !== null);
    if (addresses.length === 0) return { ok: false, reason: `${hostname} has no address` };
  }
  const byName = hostAllowed(allow, hostname);
  for (const address of addresses) {
    if (byName || addressAllowed(allow, address)) continue;
    const reason = refusedAddressReason(address);
    if (reason) return { ok: false, reason: `${hostname} resolves to ${formatIp(address)}, ${reason}` };
    if (url.protocol !== "https:") return { ok: false, reason: "plain http is allowed only to allow-listed hosts" };
  }
  const chosen = addresses[0] as IpAddress;
  return { ok: true, target: { url, hostname, address: formatIp(chosen), family: chosen.family } };
}
