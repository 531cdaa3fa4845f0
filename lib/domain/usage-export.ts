import { parseUsageCsv, type UsageFormat, type UsageParse } from "./usage";
import { parseFalBillingEvents } from "./usage-fal";

/** Reads a usage or invoice export in the shape chosen for it (decisions 073 and 076). */
export function parseUsageExport(format: UsageFormat, text: string): UsageParse {
  return format === "fal_billing_events" ? parseFalBillingEvents(text) : parseUsageCsv(format, text);
}
