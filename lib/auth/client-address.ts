/**
 * The address nearest to us in X-Forwarded-For: the last hop is the one our own proxy (or Next)
 * appended, so a client cannot pick its rate-limit bucket by sending a forged first entry.
 */
export function clientAddress(headers: Record<string, string | string[] | undefined>): string {
  const raw = headers["x-forwarded-for"] ?? headers["x-real-ip"];
  const value = Array.isArray(raw) ? raw.join(",") : raw;
  const hops = (value ?? "")
    .split(",")
    .map((hop) => hop.trim())
    .filter(Boolean);
  return hops.at(-1) ?? "unknown";
}
