import { Money } from "@/components/ui/money";
import { NumCell, Row, RowHeader, Table, TableHead } from "@/components/ui/table";
import type { Micros } from "@/lib/domain/money";
import type { StatusTotals } from "@/lib/services/finance/finance-totals";
import { plural } from "./words";

type Totals = StatusTotals & { currency: string };

function Amount({ micros, currency, note }: { micros: Micros; currency: string; note: string }) {
  return (
    <>
      <Money micros={micros} currency={currency} />
      <span className="block text-xs text-slate-600">{note}</span>
    </>
  );
}

/**
 * Holds by status per currency. Held + settled + released always equals what was reserved; what the
 * provider charged is the settled money, the flagged money beyond the holds and the provider's own
 * corrections together (decision 077).
 */
export function StatusTotalsTable({ rows }: { rows: Totals[] }) {
  return (
    <Table caption="Holds by status, per currency" aria-describedby="status-totals-note">
      <TableHead
        columns={[
          "Currency",
          { label: "Held (open)", align: "right" },
          { label: "Settled (of the holds)", align: "right" },
          { label: "Released", align: "right" },
          { label: "Overage (flagged)", align: "right" },
          { label: "Charged after release (flagged)", align: "right" },
          { label: "Corrected by the provider's figures", align: "right" },
          { label: "Charged in total", align: "right" },
          { label: "Reserved in total", align: "right" },
        ]}
      />
      <tbody>
        {rows.map((row) => (
          <Row key={row.currency} data-testid={`totals-${row.currency}`}>
            <RowHeader className="font-semibold">{row.currency}</RowHeader>
            <NumCell data-testid="held">
              <Amount micros={row.held.micros} currency={row.currency} note={plural(row.held.count, "hold")} />
            </NumCell>
            <NumCell data-testid="settled">
              <Amount
                micros={row.settled.micros}
                currency={row.currency}
                note={`${plural(row.settled.count, "hold")}${row.settled.partial ? `, ${row.settled.partial} partial` : ""}`}
              />
            </NumCell>
            <NumCell data-testid="released">
              <Amount
                micros={row.released.micros}
                currency={row.currency}
                note={`${plural(row.released.count, "hold")} in full`}
              />
            </NumCell>
            <NumCell className={row.overage.count ? "bg-amber-50" : ""} data-testid="overage">
              <Amount
                micros={row.overage.micros}
                currency={row.currency}
                note={row.overage.count ? `⚑ ${plural(row.overage.count, "entry", "entries")} to review` : "none"}
              />
            </NumCell>
            <NumCell className={row.lateCharged.count ? "bg-amber-50" : ""} data-testid="late-charged">
              <Amount
                micros={row.lateCharged.micros}
                currency={row.currency}
                note={
                  row.lateCharged.count ? `⚑ ${plural(row.lateCharged.count, "hold")} charged after release` : "none"
                }
              />
            </NumCell>
            <NumCell data-testid="corrected">
              <Amount
                micros={row.corrected.micros}
                currency={row.currency}
                note={row.corrected.count ? plural(row.corrected.count, "correction") : "none"}
              />
            </NumCell>
            <NumCell data-testid="charged">
              <Money micros={row.chargedMicros} currency={row.currency} />
            </NumCell>
            <NumCell>
              <Money micros={row.reservedMicros} currency={row.currency} />
            </NumCell>
          </Row>
        ))}
      </tbody>
    </Table>
  );
}
