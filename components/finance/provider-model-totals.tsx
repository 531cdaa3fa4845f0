import type { StatusTotals } from "@/lib/services/finance/finance-totals";
import { TotalsTable } from "./totals-table";

type Totals = StatusTotals & { currency: string; provider: string; model: string };

/** The same split per provider and model, to see which integration the money is stuck in. */
export function ProviderModelTable({ rows }: { rows: Totals[] }) {
  return (
    <TotalsTable
      caption="Holds by provider and model, per currency"
      rows={rows}
      keyOf={(row) => `${row.currency}:${row.provider}:${row.model}`}
      groups={[
        { label: "Provider", value: (row) => row.provider },
        { label: "Model", value: (row) => row.model },
        { label: "Currency", value: (row) => row.currency },
      ]}
      figures={[
        { label: "Open holds", count: (row) => row.held.count },
        { label: "Held", micros: (row) => row.held.micros },
        { label: "Settled", micros: (row) => row.settled.micros },
        { label: "Released", micros: (row) => row.released.micros },
        { label: "Overage", micros: (row) => row.overage.micros, flagged: (row) => row.overage.count > 0 },
        {
          label: "Charged after release",
          micros: (row) => row.lateCharged.micros,
          flagged: (row) => row.lateCharged.count > 0,
        },
        { label: "Corrected by the provider", micros: (row) => row.corrected.micros },
        { label: "Charged in total", micros: (row) => row.chargedMicros },
      ]}
    />
  );
}
