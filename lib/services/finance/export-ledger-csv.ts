import { stringify } from "csv-stringify/sync";
import { AppError } from "@/lib/errors";

export type Cell = string | number | null;

export const MAX_EXPORT_ROWS = 100_000;
const BATCH = 1_000;

/**
 * A spreadsheet treats a cell starting with = + - @ (or a tab / carriage return) as a formula.
 * Text cells that do are prefixed with a quote so they are shown, never evaluated. Numbers are
 * written as numbers and never need it.
 */
export function neutraliseCell(value: Cell): Cell {
  if (typeof value !== "string") return value;
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

export function toCsv(header: readonly string[], rows: readonly Cell[][]): string {
  return stringify([[...header], ...rows.map((row) => row.map(neutraliseCell))]);
}

type Keyed = { createdAt: Date; id: string };
/** The keyset condition "after the last row read"; empty for the first batch. */
export type After = { OR?: ({ createdAt: { gt: Date } } | { createdAt: Date; id: { gt: string } })[] };

/**
 * Reads rows in (created_at, id) order, a batch at a time, so memory per query stays bounded;
 * refuses ranges that would make a file too large to be useful.
 */
export async function readInBatches<T extends Keyed>(
  fetch: (after: After, take: number) => Promise<T[]>,
  toRow: (item: T) => Cell[],
): Promise<Cell[][]> {
  const out: Cell[][] = [];
  let after: After = {};
  for (;;) {
    const batch = await fetch(after, BATCH);
    for (const item of batch) out.push(toRow(item));
    if (out.length > MAX_EXPORT_ROWS) {
      throw new AppError("invalid_request", `More than ${MAX_EXPORT_ROWS} rows in this range; export a shorter range.`);
    }
    const last = batch.at(-1);
    if (batch.length < BATCH || !last) return out;
    after = { OR: [{ createdAt: { gt: last.createdAt } }, { createdAt: last.createdAt, id: { gt: last.id } }] };
  }
}
