import { Money } from "@/components/ui/money";
import { Cell, NumCell, Row, RowHeader, Table, TableHead } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import type { Micros } from "@/lib/domain/money";

type Bucket = { currency: string; bucket: string; label: string; count: number; micros: Micros; oldestAt: string };

/** Open holds by how long they have waited for a decision. */
export function AgingTable({ rows }: { rows: Bucket[] }) {
  return (
    <Table caption="Money still held, by age of the hold">
      <TableHead
        columns={[
          "Age",
          "Currency",
          { label: "Holds", align: "right" },
          { label: "Held", align: "right" },
          "Oldest since",
        ]}
      />
      <tbody>
        {rows.map((row) => (
          <Row key={`${row.currency}:${row.bucket}`}>
            <RowHeader>{row.label}</RowHeader>
            <Cell>{row.currency}</Cell>
            <NumCell>{row.count}</NumCell>
            <NumCell>
              <Money micros={row.micros} currency={row.currency} />
            </NumCell>
            <Cell>
              <Time at={row.oldestAt} />
            </Cell>
          </Row>
        ))}
      </tbody>
    </Table>
  );
}
