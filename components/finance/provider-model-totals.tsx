import { Money } from "@/components/ui/money";
import { Cell, NumCell, Row, RowHeader, Table, TableHead } from "@/components/ui/table";
import type { StatusTotals } from "@/lib/services/finance/finance-totals";

type Totals = StatusTotals & { currency: string; provider: string; model: string };

/** The same split per provider and model, to see which integration the money is stuck in. */
export function ProviderModelTable({ rows }: { rows: Totals[] }) {
  return (
    <Table caption="Holds by provider and model, per currency">
      <TableHead
        columns={[
          "Provider",
          "Model",
          "Currency",
          { label: "Open holds", align: "right" },
          { label: "Held", align: "right" },
          { label: "Settled", align: "right" },
          { label: "Released", align: "right" },
          { label: "Overage", align: "right" },
          { label: "Charged after release", align: "right" },
        ]}
      />
      <tbody>
        {rows.map((row) => (
          <Row key={`${row.currency}:${row.provider}:${row.model}`}>
            <RowHeader>{row.provider}</RowHeader>
            <Cell>{row.model}</Cell>
            <Cell>{row.currency}</Cell>
            <NumCell>{row.held.count}</NumCell>
            <NumCell>
              <Money micros={row.held.micros} currency={row.currency} />
            </NumCell>
            <NumCell>
              <Money micros={row.settled.micros} currency={row.currency} />
            </NumCell>
            <NumCell>
              <Money micros={row.released.micros} currency={row.currency} />
            </NumCell>
            <NumCell>
              <Money micros={row.overage.micros} currency={row.currency} />
              {row.overage.count ? <span className="ml-1 text-amber-800">⚑ flagged</span> : null}
            </NumCell>
            <NumCell>
              <Money micros={row.lateCharged.micros} currency={row.currency} />
              {row.lateCharged.count ? <span className="ml-1 text-amber-800">⚑ flagged</span> : null}
            </NumCell>
          </Row>
        ))}
      </tbody>
    </Table>
  );
}
