/** "3 d 4 h", "2 h 5 min", "12 min": how long money has waited, to the precision that matters. */
export function formatAge(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  const hours = Math.floor(minutes / 60);
  const days = Math.floor(hours / 24);
  if (days > 0) return `${days} d ${hours % 24} h`;
  if (hours > 0) return `${hours} h ${minutes % 60} min`;
  return minutes > 0 ? `${minutes} min` : "under a minute";
}

/** Timestamps in UTC, as the ledger and the export record them. */
export function formatWhen(iso: string | null): string {
  return iso ? `${iso.replace("T", " ").slice(0, 16)} UTC` : "—";
}

export const stageLabel = (stage: string) => stage.replaceAll("_", " ");

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

const PERMIT_LABELS: Record<string, string> = {
  live: "waiting for the producer's report",
  accepted: "sent; the provider took the job",
  rejected: "the provider refused the send",
  uncertain: "outcome unknown; parked",
  completed: "the job completed",
  failed: "the job failed",
};

/** What a send permit's status means for its hold, in words. */
export const permitLabel = (status: string | null) => (status ? (PERMIT_LABELS[status] ?? status) : "");
