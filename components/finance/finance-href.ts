/**
 * A link within the finance page that keeps the producer picked on it (`producer`, decision 034),
 * so the tabs, pages and summaries show the same producer's holds as the figures above them.
 */
export function financeHref(query: Record<string, string | undefined>, producer: string | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...query, producer })) if (value) params.set(name, value);
  return `/finance?${params}#holds`;
}
