import { FIGURES, passed, type SimulationResult } from "./engine";
import { INVOICE_FIGURES } from "./invoices";

const hours = (ms: number) => `${(ms / 3_600_000).toFixed(1)} h`;

/** The figures as printed by `npm run verify:sim` (and on a failing test). */
export function report(result: SimulationResult): string[] {
  const lines = [
    `seed ${result.seed}: ${result.jobs} jobs, ${result.steps} logical steps, ${result.ticks} worker ticks, ` +
      `${hours(result.simulatedMs)} simulated in ${(result.wallMs / 1000).toFixed(1)} s`,
    `trace digest ${result.digest}`,
    "",
    "what happened:",
    ...result.counters.map(([name, value]) => `  ${String(value).padStart(7)}  ${name}`),
    "",
    "figures that must be 0:",
    ...Object.entries(FIGURES).map(
      ([key, label]) => `  ${String(result.figures[key as keyof typeof FIGURES]).padStart(7)}  ${label}`,
    ),
  ];
  lines.push(
    "",
    "figures about the imported invoices, after finance reconciled the charges no operation explains (must be 0):",
    ...Object.entries(INVOICE_FIGURES).map(
      ([key, label]) => `  ${String(result.invoiceFigures[key as keyof typeof INVOICE_FIGURES]).padStart(7)}  ${label}`,
    ),
  );
  lines.push(...result.invoiceDetails.slice(0, 20).map((detail) => `    ${detail}`));
  if (passed(result)) return [...lines, "", "all figures that must be 0 are 0"];
  const offending = [...new Set(result.violations.map((v) => v.operation))].slice(0, 5);
  lines.push("", `FAILED with seed ${result.seed}; first violations:`);
  for (const violation of result.violations.slice(0, 10)) {
    lines.push(
      `  [${violation.figure}] ${violation.operation === null ? "" : `op${violation.operation}: `}${violation.detail}`,
    );
  }
  for (const operation of offending) {
    lines.push("", operation === null ? "last steps of the run:" : `last steps of op${operation}:`);
    const steps = operation === null ? result.lastSteps(25) : result.traceOf(operation, 25);
    lines.push(...steps.map((step) => `  ${step}`));
  }
  return lines;
}
