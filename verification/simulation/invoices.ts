import type { UsageFormat } from "@/lib/domain/usage";
import { PROVIDERS } from "@/lib/providers/registry";
import type { ProviderName } from "@/lib/providers/types";
import { importUsageFile } from "@/lib/services/usage/import-usage-file";
import { reconcileCharges } from "./reconcile-charges";
import type { Steps } from "./steps";
import { count, type World } from "./world";

/**
 * The figures about the imported invoices, after finance reconciled the charges no operation
 * explains (./reconcile-charges.ts); they must be 0 like the others. Lines a hold took whose case is
 * still uncertain at the end of the run wait to be applied (decision 077), so the ledger is held
 * against the invoice together with them.
 */
export const INVOICE_FIGURES = {
  invoicedUnexplained: "invoiced lines unexplained after reconciliation",
  ledgerDiffersFromInvoice:
    "providers and currencies whose ledger, plus the lines waiting for their case's outcome, differs from the imported invoice by a micro-unit or more",
} as const;
export type InvoiceFigure = keyof typeof INVOICE_FIGURES;

/** What the run keeps about charges and identical outputs, beside the product's own records. */
export type InvoiceBook = {
  /** The last job per provider that will succeed, by simulator key, and the operation it belongs to. */
  lastSucceeded: Map<string, { index: number; jobId: string }>;
  /** Pairs of jobs (simulator keys) the provider handed the same video. */
  identicalOutputs: [string, string][];
  /** Jobs a shop's client created outside the send permits, on purpose (simulator keys), by operation. */
  outsidePermits: Map<string, number>;
  /** Charges (provider and job ID) finance found on the product's list of charges no operation explains. */
  listed: Set<string>;
  figures: Record<InvoiceFigure, number>;
  /** What each invoice figure counted, for the report. */
  details: string[];
};

export const newInvoiceBook = (): InvoiceBook => ({
  lastSucceeded: new Map(),
  identicalOutputs: [],
  outsidePermits: new Map(),
  listed: new Set(),
  figures: { invoicedUnexplained: 0, ledgerDiffersFromInvoice: 0 },
  details: [],
});

/** Jobs a shop's client created outside the permits for operation `index`. */
export const sentOutsidePermits = (world: World, index: number) =>
  [...world.invoices.outsidePermits.values()].filter((op) => op === index).length;

/** Lines per import: one file stays well under what one import reads (MAX_USAGE_FILE_CHARS). */
const LINES_PER_FILE = 2_000;

export type ImportedLine = {
  provider: string;
  providerJobId: string | null;
  amountMicros: bigint;
  currency: string;
  holdRef: string | null;
  unmatchedReason: string | null;
  /** Finance explained it as a charge made outside the product (booked as an outside charge). */
  explained: boolean;
};

/**
 * The end of the run, as finance closes a month: each provider's invoice, downloaded from the
 * simulator's usage export in that provider's own shape, goes through the product's import (the
 * same service as Finance → Provider usage), which settles or corrects each matched hold at the
 * real charge. Then finance goes through the lines no operation explains (./reconcile-charges.ts):
 * attaches each that belongs to an operation and marks the rest as known outside the product.
 */
export async function reconcileInvoices(world: World, steps: Steps): Promise<number> {
  const finance = world.people.finance[0];
  if (!finance) throw new Error("no finance person");
  let added = 0;
  for (const provider of PROVIDERS.map((p) => p.name)) added += await importInvoice(world, finance, provider);
  await steps.after();
  await reconcileCharges(world, steps, finance);
  return added;
}

/** The imported lines as the product keeps them. */
export async function importedLines(world: World): Promise<ImportedLine[]> {
  const { rows } = await world.sql.query<ImportedLine>(
    `SELECT provider, provider_job_id AS "providerJobId", amount_micros AS "amountMicros", currency,
            hold_ref AS "holdRef", unmatched_reason AS "unmatchedReason", explained_at IS NOT NULL AS "explained"
     FROM usage_lines WHERE source = 'file' ORDER BY provider, line_hash`,
  );
  return rows.map((row) => ({ ...row, amountMicros: BigInt(row.amountMicros) }));
}

/** Imports the provider's export as it stands now; the lines an earlier import kept are not added again. */
async function importInvoice(world: World, finance: World["people"]["finance"][number], provider: ProviderName) {
  let added = 0;
  const response = await fetch(`${world.simulator.url}/__admin/usage/${provider}`);
  const format = response.headers.get("x-usage-format") as UsageFormat | null;
  const content = await response.text();
  if (!response.ok || !format) throw new Error(`the simulator gave no ${provider} usage export (${response.status})`);
  for (const [part, text] of filesOf(format, content).entries()) {
    const summary = await importUsageFile(world.db, finance, {
      provider,
      format,
      fileName: `${provider}-invoice-part-${part + 1}`,
      content: text,
    });
    count(world, `invoice lines imported from ${provider}'s export`, summary.added);
    count(world, `invoice lines matched to a hold`, summary.matched);
    added += summary.added;
  }
  return added;
}

/** An export cut into files the import takes whole: CSV by lines under the header, fal's events by page. */
function filesOf(format: UsageFormat, content: string): string[] {
  if (format === "fal_billing_events") {
    const events = (JSON.parse(content) as { billing_events: unknown[] }).billing_events;
    return chunks(events).map((page) => JSON.stringify({ billing_events: page, next_cursor: null, has_more: false }));
  }
  const [header, ...lines] = content.split("\n").filter((line) => line !== "");
  return chunks(lines).map((part) => `${header}\n${part.join("\n")}\n`);
}

function chunks<T>(items: T[]): T[][] {
  const parts: T[][] = [];
  for (let i = 0; i < items.length; i += LINES_PER_FILE) parts.push(items.slice(i, i + LINES_PER_FILE));
  return parts;
}
