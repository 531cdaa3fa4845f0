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
