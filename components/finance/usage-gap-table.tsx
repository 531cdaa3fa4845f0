import { Money } from "@/components/ui/money";
import { Cell, NumCell, Row, RowHeader, Table, TableHead } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import type { UsageGapView } from "@/lib/services/usage/usage-gap";

const REASON_WORDS: Record<string, string> = {
  no_job: "no attempt names this job",
  no_hold: "the job's attempt has no hold",
  currency_differs: "in another currency than the hold",
};

/** Reserved against what the provider charged, per provider, model, producer and day (decision 073). */
export function UsageGapTable({ rows }: { rows: UsageGapView["rows"] }) {
  return (
    <Table caption="Reserved and charged by the provider, per provider, model, producer and day">
      <TableHead
        columns={[
          "Day (UTC)",
          "Provider",
          "Model",
          "Producer",
          "Currency",
          { label: "Jobs", align: "right" },
          { label: "Reserved", align: "right" },
          { label: "Charged by the provider", align: "right" },
          { label: "Gap", align: "right" },
        ]}
      />
      <tbody>
        {rows.map((row) => (
          <Row
            key={`${row.day}:${row.provider}:${row.model}:${row.producer}:${row.currency}`}
            data-gap-row={row.currency}
          >
            <RowHeader>{row.day}</RowHeader>
            <Cell>{row.provider}</Cell>
            <Cell>{row.model}</Cell>
            <Cell>{row.producer}</Cell>
            <Cell>{row.currency}</Cell>
            <NumCell>{row.jobs}</NumCell>
            <NumCell>
              <Money micros={row.reservedMicros} currency={row.currency} />
            </NumCell>
            <NumCell>
              <Money micros={row.chargedMicros} currency={row.currency} />
            </NumCell>
            <NumCell data-gap>
              <Money micros={row.gapMicros} currency={row.currency} />
            </NumCell>
          </Row>
        ))}
      </tbody>
    </Table>
  );
}

/** Lines no hold took: kept and counted until someone explains them. */
export function UnexplainedLines({ lines }: { lines: UsageGapView["unexplained"]["lines"] }) {
  return (
    <Table caption="Usage lines no hold explains, newest import first">
      <TableHead
        columns={[
          "Provider",
          "Provider job",
          "Used",
          "Currency",
          { label: "Amount", align: "right" },
          "Why unexplained",
        ]}
      />
      <tbody>
        {lines.map((line) => (
          <Row key={line.id}>
            <RowHeader>{line.provider}</RowHeader>
            <Cell>{line.providerJobId ?? "not named in the line"}</Cell>
            <Cell>
              <Time at={line.usageAt} />
            </Cell>
            <Cell>{line.currency}</Cell>
            <NumCell>
              <Money micros={line.amountMicros} currency={line.currency} />
            </NumCell>
            <Cell>{REASON_WORDS[line.reason] ?? line.reason}</Cell>
          </Row>
        ))}
      </tbody>
    </Table>
  );
}
