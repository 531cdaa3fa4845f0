import { createHash } from "node:crypto";
import { isCurrencyCode } from "./currency";
import type { HoldResolution, HoldStatus } from "./holds";
import { planSettle } from "./holds";
import { HARD_MONEY_CEILING_MICROS } from "./money-ceiling";

// Usage import (decision 073): what a provider says it charged, one line per job or SKU, read from
// its export file or from the job's own answer, and what that line does to the hold of the attempt
// that owns the job (DESIGN rules 7, 11 and 18). Pure: parsing, the line's identity, the arithmetic.

/** The CSV shapes a file import reads (docs/providers.md, "Usage and cost"). */
export const CSV_USAGE_FORMATS = ["generic", "gcp_billing"] as const;
export type CsvUsageFormat = (typeof CSV_USAGE_FORMATS)[number];
/** Every shape a file import reads: the CSV ones and fal's billing events (JSON, ./usage-fal.ts; decision 076). */
export const USAGE_FORMATS = [...CSV_USAGE_FORMATS, "fal_billing_events"] as const;
export type UsageFormat = (typeof USAGE_FORMATS)[number];

/**
 * The providers whose API gives a job's cost (docs/providers.md, "Usage and cost"): Runway's task
 * `cost.credits`, fal's billing events, and Replicate's `metrics` priced from the price table.
 */
export const PROVIDERS_WITH_JOB_COST = ["runway", "fal", "replicate"] as const;

/** Runway bills in credits at $0.01 each (docs/providers.md, "Usage and cost"): 10,000 micro-dollars. */
export const RUNWAY_CREDIT_MICROS = 10_000;
export const RUNWAY_CREDIT_CURRENCY = "USD";

export type UsageLineFacts = {
  providerJobId: string | null;
  providerAccount: string | null;
  model: string | null;
  usageAt: Date;
  amountMicros: number;
  currency: string;
  lineNumber: number;
};

export type UsageParseProblem = { line: number; message: string };
export type UsageParse = { lines: UsageLineFacts[]; problems: UsageParseProblem[] };

/** RFC 4180 rows: quoted fields may hold commas, doubled quotes and line breaks. */
export function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  const body = text.replace(/^\uFEFF/, "");
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (quoted) {
      if (ch === '"' && body[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"' && field === "") quoted = true;
    else if (ch === ",") {
      row.push(field);
      field = "";
    } else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && body[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += ch;
  }
  if (field !== "" || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((cells) => cells.some((cell) => cell.trim() !== ""));
}

const SIGNED_DECIMAL = /^(-)?(\d{1,16})(?:\.(\d+))?$/;

/**
 * A signed plain decimal ("0.42", "-1.5": a provider's credit or refund line is negative) in
 * micro-units, never through a float. Digits past the sixth decimal are refused unless they are
 * zeros: rounding would be a rule nobody agreed to (DESIGN rule 7).
 */
export function signedMicros(text: string): number | null {
  const match = SIGNED_DECIMAL.exec(text.trim());
  if (!match?.[2]) return null;
  const decimals = match[3] ?? "";
  if (/[^0]/.test(decimals.slice(6))) return null;
  const micros = BigInt(match[2]) * 1_000_000n + BigInt(decimals.slice(0, 6).padEnd(6, "0"));
  if (micros > BigInt(HARD_MONEY_CEILING_MICROS)) return null;
  return Number(match[1] ? -micros : micros);
}

export function parseTime(text: string): Date | null {
  const trimmed = text.trim();
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?( ?(Z|UTC|[+-]\d{2}:?\d{2}))?$/.test(trimmed)) return null;
  const iso = trimmed.replace(" UTC", "Z").replace(/^(\S+) (\d)/, "$1T$2");
  const date = new Date(/[zZ]|[+-]\d{2}:?\d{2}$/.test(iso) || iso.length === 10 ? iso : `${iso}Z`);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** Each shape's columns: the header names a line is read by (case and spaces ignored). */
const COLUMNS: Record<
  CsvUsageFormat,
  { job: string[]; amount: string; currency: string; time: string; model: string[]; account: string[] }
> = {
  // One row per job: what a shop's own books or a provider's per-request log can give.
  generic: {
    job: ["provider_job_id"],
    amount: "amount",
    currency: "currency",
    time: "time",
    model: ["model"],
    account: ["provider_account"],
  },
  // Google Cloud Billing's export (standard usage cost columns): no column names a Veo operation;
  // the detailed export's `resource.name` is read where present (docs/providers.md).
  gcp_billing: {
    job: ["resource.name"],
    amount: "cost",
    currency: "currency",
    time: "usage_start_time",
    model: ["sku.description"],
    account: ["billing_account_id", "project.id"],
  },
};

const norm = (name: string) => name.trim().toLowerCase().replace(/\s+/g, "_");

/** Reads an export in one of the shapes; lines that cannot be read are named, never guessed at. */
export function parseUsageCsv(format: CsvUsageFormat, text: string): UsageParse {
  const rows = csvRows(text);
  const header = (rows[0] ?? []).map(norm);
  const columns = COLUMNS[format];
  const at = (name: string) => header.indexOf(norm(name));
  const firstOf = (names: string[]) => names.map(at).find((i) => i >= 0) ?? -1;
  const required = [columns.amount, columns.currency, columns.time, ...(format === "generic" ? columns.job : [])];
  const missing = required.filter((name) => at(name) < 0);
  if (rows.length === 0 || missing.length > 0)
    return { lines: [], problems: [{ line: 1, message: `the header lacks ${missing.join(", ") || "every column"}` }] };
  const lines: UsageLineFacts[] = [];
  const problems: UsageParseProblem[] = [];
  const jobAt = firstOf(columns.job);
  const modelAt = firstOf(columns.model);
  const accountAt = firstOf(columns.account);
  rows.slice(1).forEach((cells, i) => {
    const lineNumber = i + 2;
    const cell = (index: number) => (index >= 0 ? (cells[index] ?? "").trim() : "");
    const amountMicros = signedMicros(cell(at(columns.amount)));
    const currency = cell(at(columns.currency)).toUpperCase();
    const usageAt = parseTime(cell(at(columns.time)));
    const job = cell(jobAt);
    if (amountMicros === null) problems.push({ line: lineNumber, message: "the amount is not a plain decimal" });
    else if (!isCurrencyCode(currency)) problems.push({ line: lineNumber, message: "the currency is not a code" });
    else if (usageAt === null) problems.push({ line: lineNumber, message: "the time is not a date and time" });
    else if (format === "generic" && job === "") problems.push({ line: lineNumber, message: "no provider job ID" });
    else
      lines.push({
        providerJobId: job === "" ? null : job,
        providerAccount: cell(accountAt) || null,
        model: cell(modelAt) || null,
        usageAt,
        amountMicros,
        currency,
        lineNumber,
      });
  });
  return { lines, problems };
}

/**
 * A line's identity: its facts and how many identical lines came before it in the same file, so
 * the same export (or an overlapping later one) imported again adds nothing, while two equal
 * charges in one file stay two.
 */
export function lineHashes(provider: string, lines: readonly UsageLineFacts[]): string[] {
  const seen = new Map<string, number>();
  return lines.map((line) => {
    const facts = [
      provider,
      line.providerAccount ?? "",
      line.providerJobId ?? "",
      line.model ?? "",
      line.usageAt.toISOString(),
      String(line.amountMicros),
      line.currency,
    ].join("\u001f");
    const occurrence = (seen.get(facts) ?? 0) + 1;
    seen.set(facts, occurrence);
    return `sha256:${createHash("sha256").update(`${facts}\u001f${occurrence}`).digest("hex")}`;
  });
}

/** The ledger of one hold as a usage line finds it. */
export type HoldCharge = {
  status: HoldStatus;
  amountMicros: number;
  currency: string;
  /** settle + overage + late_charge + every adjustment so far: what the ledger says was charged. */
  chargedMicros: number;
};

/** What one matched line does: settle a held hold at the real charge, or post the difference. */
export type UsagePlan =
  | { kind: "settle"; resolution: HoldResolution; adjustmentMicros: number }
  | { kind: "adjust"; adjustmentMicros: number }
  | { kind: "charge_after_release" }
  | { kind: "unmatched"; reason: "currency_differs" };

/**
 * The hold's real charge is the sum of its matched lines (`realMicros`, this one included). A held
 * hold settles at it (rule 7: up to the hold, the rest released, beyond it a flagged overage); a
 * settled hold gets the difference to what its ledger charged as an adjustment (0: nothing to
 * post); a released one is first charged after release (rule 18), then adjusted by the next call.
 */
export function planUsage(hold: HoldCharge, line: { currency: string }, realMicros: number): UsagePlan {
  if (hold.currency !== line.currency) return { kind: "unmatched", reason: "currency_differs" };
  if (hold.status === "released" && hold.chargedMicros === 0) return { kind: "charge_after_release" };
  if (hold.status === "held" && realMicros > 0) {
    const plan = planSettle({ status: "held", amountMicros: hold.amountMicros }, realMicros);
    if (plan.ok) return { kind: "settle", resolution: plan.value, adjustmentMicros: realMicros - hold.amountMicros };
  }
  if (hold.status === "held") return { kind: "adjust", adjustmentMicros: 0 };
  return { kind: "adjust", adjustmentMicros: realMicros - hold.chargedMicros };
}

/**
 * A measured job priced from the product's price table (Replicate's `metrics`, decision 076): per
 * second of video when the provider says the video's seconds, else per second the job ran, or one
 * generation. An estimate, rounded to the micro-unit (half up); null past the money ceiling.
 */
export function priceMetrics(
  price: { unit: "per_generation" | "per_second"; priceMicros: number },
  metrics: { runSeconds: number; outputSeconds?: number },
): number | null {
  const micros =
    price.unit === "per_generation"
      ? price.priceMicros
      : Math.round(price.priceMicros * (metrics.outputSeconds ?? metrics.runSeconds));
  return Number.isSafeInteger(micros) && micros <= HARD_MONEY_CEILING_MICROS ? micros : null;
}

/** The gap finance reads: what the provider charged minus what was reserved (negative: it charged less). */
export function usageGap(reservedMicros: bigint, chargedMicros: bigint): bigint {
  return chargedMicros - reservedMicros;
}
