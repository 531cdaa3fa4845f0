import type { Fault, SimRoute } from "./faults";
import type { SimProvider } from "./jobs";
import type { RouteContext } from "./respond";

/** One resolved provider-facing route. Create and download routes apply their faults themselves. */
export type RouteMatch = {
  provider: SimProvider;
  route: SimRoute;
  jobId?: string;
  handle(ctx: RouteContext, fault: Fault | undefined): Promise<void> | void;
};

export const iso = (ms: number) => new Date(ms).toISOString();

export const encodeCursor = (offset: number) => Buffer.from(String(offset)).toString("base64");

export function decodeCursor(cursor: string | null): number {
  if (!cursor) return 0;
  const value = Number(Buffer.from(cursor, "base64").toString("utf8"));
  return Number.isInteger(value) && value >= 0 ? value : 0;
}

export function parseTime(value: string | null, fallback: number): number {
  if (!value) return fallback;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? fallback : ms;
}
