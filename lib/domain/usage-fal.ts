import { HARD_MONEY_CEILING_MICROS } from "./money-ceiling";
import { parseTime, type UsageLineFacts, type UsageParse, type UsageParseProblem } from "./usage";

// fal's Platform API billing events (`GET /v1/models/billing-events`, docs/providers.md "Usage and
// cost"; decision 076): one event per billed request, naming its `request_id` (the job) and its cost
// in nano-dollars. Pure: the JSON of one page, or of several pages or events in one array.

const NANO_PER_MICRO = 1000;

type Event = Record<string, unknown>;

function eventsOf(body: unknown): Event[] | null {
  const pages = Array.isArray(body) ? body : [body];
  const events: Event[] = [];
  for (const page of pages) {
    if (typeof page !== "object" || page === null) return null;
    const listed = (page as { billing_events?: unknown }).billing_events;
    if (Array.isArray(listed)) events.push(...listed.map((e) => (typeof e === "object" && e !== null ? e : {})));
    else if ("request_id" in page) events.push(page as Event);
    else return null;
  }
  return events;
}

/** Nano-dollars as micro-dollars, only when exact: a finer cost would have to be rounded (DESIGN rule 7). */
function microsOfNano(value: unknown): number | null {
  const text = typeof value === "number" ? (Number.isSafeInteger(value) ? String(value) : "") : String(value ?? "");
  if (!/^-?\d{1,22}$/.test(text)) return null;
  const nano = BigInt(text);
  if (nano % BigInt(NANO_PER_MICRO) !== 0n) return null;
  const micros = nano / BigInt(NANO_PER_MICRO);
  if (micros > BigInt(HARD_MONEY_CEILING_MICROS) || -micros > BigInt(HARD_MONEY_CEILING_MICROS)) return null;
  return Number(micros);
}

/** Reads fal's billing events from a file; an event that cannot be read is named by its place, never guessed at. */
export function parseFalBillingEvents(text: string): UsageParse {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { lines: [], problems: [{ line: 1, message: "the file is not JSON" }] };
  }
  return readFalBillingEvents(body);
}

/** The same, from a page the Platform API answered (or several pages in one array). */
export function readFalBillingEvents(body: unknown): UsageParse {
  const events = eventsOf(body);
  if (events === null) return { lines: [], problems: [{ line: 1, message: "the file holds no billing_events" }] };
  const lines: UsageLineFacts[] = [];
  const problems: UsageParseProblem[] = [];
  events.forEach((event, i) => {
    const lineNumber = i + 1;
    const job = typeof event.request_id === "string" ? event.request_id.trim() : "";
    const usageAt = typeof event.timestamp === "string" ? parseTime(event.timestamp) : null;
    const amountMicros = microsOfNano(event.cost_estimate_nano_usd);
    if (job === "") problems.push({ line: lineNumber, message: "no request_id" });
    else if (usageAt === null) problems.push({ line: lineNumber, message: "the timestamp is not a date and time" });
    else if (amountMicros === null)
      problems.push({ line: lineNumber, message: "cost_estimate_nano_usd is not a whole number of micro-dollars" });
    else
      lines.push({
        providerJobId: job,
        providerAccount: null,
        model: typeof event.endpoint_id === "string" && event.endpoint_id !== "" ? event.endpoint_id : null,
        usageAt,
        amountMicros,
        currency: "USD",
        lineNumber,
      });
  });
  return { lines, problems };
}
