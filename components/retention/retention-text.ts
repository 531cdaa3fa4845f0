/** How the console words a policy's days: "90 days after resolution" or "off". */
export function retentionDaysText(days: number | null): string {
  return days === null ? "off" : `${days} ${days === 1 ? "day" : "days"} after resolution`;
}

const BYTES = new Intl.NumberFormat("en-GB", { maximumFractionDigits: 1 });

/** "0 B", "2.0 KB", "1.5 GB": video sizes at a glance (1 KB = 1024 B). */
export function formatBytes(bytes: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : BYTES.format(value)} ${units[unit]}`;
}
