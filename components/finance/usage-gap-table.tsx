import { Money } from "@/components/ui/money";
import { Cell, NumCell, Row, RowHeader, Table, TableHead } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import type { UsageGapView } from "@/lib/services/usage/usage-gap";
import { TotalsTable } from "./totals-table";

const REASON_WORDS: Record<string, string> = {
  no_job: "no attempt names this job",
  no_hold: "the job's attempt has no hold",
  currency_differs: "in another currency than the hold",
};

/** Reserved against what the provider charged, per provider, model, producer and day (decision 073). */
export function UsageGapTable({ rows }: { rows: UsageGapView["rows"] }) {
  return (
    <TotalsTable
      caption="Reserved and charged by the provider, per provider, model, producer and day"
      rows={rows}
      keyOf={(row) => `${row.day}:${row.provider}:${row.model}:${row.producer}:${row.currency}`}
      rowProps={(row) => ({ "data-gap-row": row.currency })}
      groups={[
        { label: "Day (UTC)", value: (row) => row.day },
        { label: "Provider", value: (row) => row.provider },
        { label: "Model", value: (row) => row.model },
        { label: "Producer", value: (row) => row.producer },
        { label: "Currency", value: (row) => row.currency },
      ]}
      figures={[
        { label: "Jobs", count: (row) => row.jobs },
        { label: "Reserved", micros: (row) => row.reservedMicros },
        { label: "Charged by the provider", micros: (row) => row.chargedMicros },
        { label: "Gap", micros: (row) => row.gapMicros, cellProps: { "data-gap": "" } },
      ]}
    />
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
