export type Sample = { name: string; labels?: Record<string, string>; value: number };
export type Family = { name: string; type: "gauge" | "counter" | "histogram"; help: string; samples: Sample[] };

const escapeLabel = (value: string) => value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');

/** Prometheus text exposition format 0.0.4. */
export function exposition(families: Family[]): string {
  const lines: string[] = [];
  for (const family of families) {
    lines.push(`# HELP ${family.name} ${family.help}`, `# TYPE ${family.name} ${family.type}`);
    for (const sample of family.samples) {
      const labels = Object.entries(sample.labels ?? {});
      const text = labels.length ? `{${labels.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",")}}` : "";
      lines.push(`${sample.name}${text} ${Number.isFinite(sample.value) ? sample.value : 0}`);
    }
  }
  return `${lines.join("\n")}\n`;
}
