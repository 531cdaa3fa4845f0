/**
 * Pure parsing and classification of IP addresses, for deciding where a webhook may be sent.
 * No lookups here: the caller resolves names and asks about every address it got back.
 */

export type IpAddress = { family: 4 | 6; value: bigint };

const V4_PART = /^(0x[0-9a-f]*|0[0-7]*|[1-9][0-9]*)$/i;

/**
 * An IPv4 address in any form a resolver accepts (inet_aton): dotted decimal, and also
 * `2130706433`, `0x7f.1`, `0177.0.0.1`; one to four parts, the last filling the remaining bytes.
 */
export function parseIpv4(text: string): IpAddress | null {
  const parts = text.split(".");
  if (parts.length > 4 || parts.some((part) => !V4_PART.test(part))) return null;
  const numbers = parts.map((part) =>
    /^0x/i.test(part)
      ? part.length === 2
        ? 0n
        : BigInt(part)
      : part.length > 1 && part.startsWith("0")
        ? BigInt(`0o${part.slice(1)}`)
        : BigInt(part),
  );
  const last = numbers.pop() ?? 0n;
  if (numbers.some((n) => n > 255n)) return null;
  const lastBits = BigInt(8 * (4 - numbers.length));
  if (last >= 1n << lastBits) return null;
  let value = 0n;
  for (const n of numbers) value = (value << 8n) | n;
  return { family: 4, value: (value << lastBits) | last };
}

/** An IPv6 address (brackets and a zone such as `%eth0` allowed), including a trailing dotted IPv4. */
export function parseIpv6(text: string): IpAddress | null {
  let body = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  body = body.replace(/%[^%]*$/, "");
  if (!/^[0-9a-f:.]+$/i.test(body) || !body.includes(":")) return null;
  let groups: number[] = [];
  const tail = body.match(/^(.*:)(\d+\.\d+\.\d+\.\d+)$/);
  if (tail) {
    const v4 = tail[2]?.split(".").map(Number) ?? [];
    if (v4.length !== 4 || v4.some((n) => n > 255) || !/^(\d{1,3}\.){3}\d{1,3}$/.test(tail[2] ?? "")) return null;
    body = `${tail[1]}${((v4[0] ?? 0) * 256 + (v4[1] ?? 0)).toString(16)}:${((v4[2] ?? 0) * 256 + (v4[3] ?? 0)).toString(16)}`;
  }
  const halves = body.split("::");
  if (halves.length > 2) return null;
  const read = (half: string) => (half === "" ? [] : half.split(":"));
  const head = read(halves[0] ?? "");
  const rest = halves.length === 2 ? read(halves[1] ?? "") : [];
  if ([...head, ...rest].some((g) => !/^[0-9a-f]{1,4}$/i.test(g))) return null;
  if (halves.length === 2) {
    const missing = 8 - head.length - rest.length;
    if (missing < 1) return null;
    groups = [...head, ...Array<string>(missing).fill("0"), ...rest].map((g) => Number.parseInt(g, 16));
  } else {
    if (head.length !== 8) return null;
    groups = head.map((g) => Number.parseInt(g, 16));
  }
  let value = 0n;
  for (const g of groups) value = (value << 16n) | BigInt(g);
  return { family: 6, value };
}

/** A literal address in either family, or null for a name that needs resolving. */
export function parseIp(text: string): IpAddress | null {
  return parseIpv6(text) ?? parseIpv4(text);
}

export type Cidr = { family: 4 | 6; base: bigint; bits: number };

export function parseCidr(text: string): Cidr | null {
  const [addressText = "", bitsText, extra] = text.trim().split("/");
  if (extra !== undefined) return null;
  const address = parseIp(addressText);
  if (!address) return null;
  const width = address.family === 4 ? 32 : 128;
  const bits = bitsText === undefined ? width : /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : Number.NaN;
  if (!(bits >= 0 && bits <= width)) return null;
  return { family: address.family, base: address.value >> BigInt(width - bits), bits };
}

export function inCidr(address: IpAddress, cidr: Cidr): boolean {
  if (address.family !== cidr.family) return false;
  const width = address.family === 4 ? 32 : 128;
  return address.value >> BigInt(width - cidr.bits) === cidr.base;
}

const table = (rows: [string, string][]) => rows.map(([range, reason]) => ({ cidr: parseCidr(range) as Cidr, reason }));

const METADATA = "a cloud metadata address";
const V4_REFUSED = table([
  ["169.254.169.254/32", METADATA],
  ["0.0.0.0/8", "a 'this network' address"],
  ["10.0.0.0/8", "a private address"],
  ["100.64.0.0/10", "a carrier-grade NAT address"],
  ["127.0.0.0/8", "a loopback address"],
  ["169.254.0.0/16", "a link-local address"],
  ["172.16.0.0/12", "a private address"],
  ["192.0.0.0/24", "an IETF protocol address"],
  ["192.0.2.0/24", "a documentation address"],
  ["192.168.0.0/16", "a private address"],
  ["198.18.0.0/15", "a benchmarking address"],
  ["198.51.100.0/24", "a documentation address"],
  ["203.0.113.0/24", "a documentation address"],
  ["224.0.0.0/4", "a multicast address"],
  ["240.0.0.0/4", "a reserved or broadcast address"],
]);
const V6_REFUSED = table([
  ["::/128", "the unspecified address"],
  ["::1/128", "a loopback address"],
  ["::ffff:0:0/96", "an IPv4-mapped address"],
  ["::ffff:0:0:0/96", "an IPv4-translated address"],
  ["::/96", "an IPv4-compatible address"],
  ["64:ff9b:1::/48", "a local NAT64 address"],
  ["100::/64", "a discard address"],
  ["2001::/32", "a Teredo tunnel address"],
  ["2001:db8::/32", "a documentation address"],
  ["fc00::/7", "a unique-local address"],
  ["fe80::/10", "a link-local address"],
  ["fec0::/10", "a site-local address"],
  ["ff00::/8", "a multicast address"],
]);
const NAT64 = parseCidr("64:ff9b::/96") as Cidr;
const SIX_TO_FOUR = parseCidr("2002::/16") as Cidr;

/**
 * Why a webhook must not go to this address (loopback, private, link-local, metadata, ...), or
 * null for a public address. IPv6 forms that carry an IPv4 address (NAT64, 6to4) are judged by
 * the address they carry; IPv4-mapped and -compatible forms are refused outright.
 */
export function refusedAddressReason(address: IpAddress): string | null {
  if (address.family === 4) return V4_REFUSED.find((row) => inCidr(address, row.cidr))?.reason ?? null;
  const listed = V6_REFUSED.find((row) => inCidr(address, row.cidr));
  if (listed) return listed.reason;
  const embedded = inCidr(address, NAT64)
    ? address.value & 0xffffffffn
    : inCidr(address, SIX_TO_FOUR)
      ? (address.value >> 80n) & 0xffffffffn
      : null;
  if (embedded === null) return null;
  const inner = refusedAddressReason({ family: 4, value: embedded });
  return inner ? `an IPv6 address carrying ${inner}` : null;
}

/** Host names that name this machine, the local network or a cloud metadata service, whatever they resolve to. */
export function refusedHostnameReason(hostname: string): string | null {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  if (["metadata", "metadata.google.internal", "metadata.goog", "instance-data"].includes(name)) return METADATA;
  if (name === "localhost" || name.endsWith(".localhost")) return "a name for this machine";
  if (name.endsWith(".internal") || name.endsWith(".local")) return "a local network name";
  return null;
}

export function formatIp(address: IpAddress): string {
  if (address.family === 4) {
    return [24n, 16n, 8n, 0n].map((shift) => String((address.value >> shift) & 255n)).join(".");
  }
  const groups = Array.from({ length: 8 }, (_, i) => ((address.value >> BigInt(112 - 16 * i)) & 0xffffn).toString(16));
  return groups.join(":");
}
