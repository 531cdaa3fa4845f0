import { formatMicros, type Micros } from "@/lib/domain/money";

/** Money is passed around as integer micro-units and formatted only here, for people. */
export function Money({ micros, currency }: { micros: Micros; currency: string }) {
  return <span className="tabular-nums">{formatMicros(micros, currency)}</span>;
}
