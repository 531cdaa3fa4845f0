/** The policy row every producer without one of its own follows (decision 033). */
export const GLOBAL_RETENTION_SCOPE = "*";
/** A retention run is due this long after the previous one, whichever worker took it. */
export const RETENTION_INTERVAL_MS = 60 * 60 * 1000;
/** Cases redacted per transaction; a run goes on batch by batch until none is left or time runs out. */
export const RETENTION_BATCH = 50;
export const MAX_RETENTION_DAYS = 3650;

/** What a redaction leaves in place of text, saying why and when (lib/audit/canonical.ts marker). */
export function retentionReason(days: number, at: Date): string {
  return `retention policy: ${days} days after resolution, ${at.toISOString().slice(0, 10)}`;
}
