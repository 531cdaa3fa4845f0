import { type BenchCheck, type BenchRow, ratioOf } from "./types";

function figure(value: number, unit: string): string {
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return `${value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: 0 })} ${unit}`;
}

/** A Markdown table (readable in a terminal too): every figure, its baseline, the ratio, the target. */
export function renderTable(rows: BenchRow[], checks: BenchCheck[]): string {
  const lines = [
    "| part | figure | value | baseline | ratio (>1 = product better) | target |",
    "|---|---|---|---|---|---|",
  ];
  for (const row of rows) {
    const ratio = ratioOf(row);
    const baseline = row.baseline ? `${figure(row.baseline.value, row.unit)} (${row.baseline.label})` : "";
    lines.push(
      `| ${row.part} | ${row.metric} | ${figure(row.value, row.unit)} | ${baseline} | ${ratio === undefined ? "" : `${ratio.toFixed(2)}x`} | ${row.target ?? ""} |`,
    );
  }
  if (checks.length > 0) {
    lines.push("", "| part | correctness check | result |", "|---|---|---|");
    for (const check of checks)
      lines.push(`| ${check.part} | ${check.name} | ${check.ok ? "ok" : "FAILED"}: ${check.detail} |`);
  }
  return lines.join("\n");
}
