import { Money } from "@/components/ui/money";
import { Cell, NumCell, Row, RowHeader, Table, TableHead } from "@/components/ui/table";
import type { LedgerVersusInvoice } from "@/lib/services/usage/ledger-versus-invoice";

/**
 * The imported invoice beside the ledger, per provider and currency (decision 074), and what the
 * ledger charged on holds no imported line names (decision 080).
 */
export function LedgerVersusInvoiceTable({ rows }: { rows: LedgerVersusInvoice }) {
  return (
    <Table caption="Imported usage lines and the ledger, per provider and currency">
      <TableHead
        columns={[
          "Provider",
          "Currency",
          { label: "Invoiced", align: "right" },
          { label: "In the ledger", align: "right" },
          { label: "Still unexplained", align: "right" },
          { label: "Waiting to apply", align: "right" },
          { label: "Difference", align: "right" },
          { label: "Charged, on no imported line", align: "right" },
        ]}
      />
      <tbody>
        {rows.map((row) => (
          <Row key={`${row.provider}:${row.currency}`} data-balance={`${row.provider}:${row.currency}`}>
            <RowHeader>{row.provider}</RowHeader>
            <Cell>{row.currency}</Cell>
            <NumCell>
              <Money micros={row.invoiceMicros} currency={row.currency} />
            </NumCell>
            <NumCell>
              <Money micros={row.ledgerMicros} currency={row.currency} />
            </NumCell>
            <NumCell>
              <Money micros={row.unexplainedMicros} currency={row.currency} />
            </NumCell>
            <NumCell>
              <Money micros={row.waitingMicros} currency={row.currency} />
            </NumCell>
            <NumCell data-difference>
              <Money micros={row.differenceMicros} currency={row.currency} />
            </NumCell>
            <NumCell data-not-on-invoice>
              <Money micros={row.notOnInvoiceMicros} currency={row.currency} />
            </NumCell>
          </Row>
        ))}
      </tbody>
    </Table>
  );
}
