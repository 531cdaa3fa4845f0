import { isIP } from "node:net";

/**
 * What the sign-in limits count an address as (docs/decisions/053): an IPv4 address as itself, an
 * IPv6 address as its /64. One IPv6 subscriber is routinely handed a whole /64 (often far more), so
 * keying on the full address would give one client 2^64 fresh allowances.
 */
export function addressKey(address: string): string {
  const bare = address.split("%")[0] ?? "";
  if (isIP(bare) !== 6) return address;
  const groups = ipv6Groups(bare);
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(":")}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, `::` and a dotted IPv4 tail expanded. */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((group) => Number.parseInt(group, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const zeros = Array.from({ length: 8 - left.length - right.length }, () => 0);
  return [...left, ...zeros, ...right];
}
