import { type Cidr, type IpAddress, inCidr, parseCidr } from "./ip-address";

/**
 * The exceptions to "webhooks go to public https addresses only": host names (any address they
 * resolve to, over http too) and address ranges (a resolved or literal address inside one may be
 * private, over http too). Meant for the demo's and the tests' receivers on this machine.
 */
export type WebhookAllowList = { hosts: ReadonlySet<string>; ranges: readonly Cidr[]; entries: readonly string[] };

/** Demo mode without WEBHOOK_ALLOWED_HOSTS: receivers on this machine, as demo mode always allowed. */
export const DEMO_WEBHOOK_ALLOW_LIST = "localhost,127.0.0.1,::1";

export function parseWebhookAllowList(text: string): WebhookAllowList {
  const entries = text
    .split(",")
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean);
  const hosts = new Set<string>();
  const ranges: Cidr[] = [];
  for (const entry of entries) {
    const range = parseCidr(entry.replace(/^\[(.*)\]$/, "$1"));
    if (range) ranges.push(range);
    else hosts.add(entry.replace(/\.$/, ""));
  }
  return { hosts, ranges, entries };
}

export function webhookAllowListFromEnv(env: { demo: boolean; WEBHOOK_ALLOWED_HOSTS?: string }): WebhookAllowList {
  return parseWebhookAllowList(env.WEBHOOK_ALLOWED_HOSTS ?? (env.demo ? DEMO_WEBHOOK_ALLOW_LIST : ""));
}

export const hostAllowed = (list: WebhookAllowList, hostname: string) =>
  list.hosts.has(hostname.toLowerCase().replace(/\.$/, ""));

export const addressAllowed = (list: WebhookAllowList, address: IpAddress) =>
  list.ranges.some((range) => inCidr(address, range));
