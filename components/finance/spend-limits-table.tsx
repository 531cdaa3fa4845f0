import { Money } from "@/components/ui/money";
import { Cell, NumCell, Row, RowHeader, Table, TableHead } from "@/components/ui/table";
import type { SpendLimitView } from "@/lib/services/spend-limit/list-spend-limits";
import { ClearSpendLimitButton } from "./clear-spend-limit-button";

/** One window's use against its limit: "$120.00 of $250.00", or the use alone where nothing limits it. */
function Use({ used, limit, currency }: { used: number; limit: number | null; currency: string }) {
  if (limit === null) {
    return (
      <>
        <Money micros={used} currency={currency} /> <span className="text-slate-600">(no limit)</span>
      </>
    );
  }
  const full = used >= limit;
  return (
    <span className={full ? "font-semibold text-red-800" : undefined}>
      <Money micros={used} currency={currency} /> of <Money micros={limit} currency={currency} />
      {full ? " (reached)" : ""}
    </span>
  );
}

/** Each limit with what replacements authorised in its rolling hour and day have used of it. */
export function SpendLimitsTable({ rows, canSet }: { rows: SpendLimitView[]; canSet: boolean }) {
  return (
    <Table caption="Spend limits on replacements, with their use" data-testid="spend-limits">
      <TableHead
        columns={[
          "Currency",
          "Producer",
          { label: "Last hour", align: "right" },
          { label: "Last 24 hours", align: "right" },
          ...(canSet ? [{ label: "Actions", hidden: true }] : []),
        ]}
      />
      <tbody>
        {rows.map((row) => (
          <Row key={`${row.currency}:${row.producer ?? ""}`}>
            <RowHeader>{row.currency}</RowHeader>
            <Cell>{row.producer ?? "every producer"}</Cell>
            <NumCell>
              <Use used={row.usedHourMicros} limit={row.perHourMicros} currency={row.currency} />
            </NumCell>
            <NumCell>
              <Use used={row.usedDayMicros} limit={row.perDayMicros} currency={row.currency} />
            </NumCell>
            {canSet ? (
              <Cell>
                <ClearSpendLimitButton currency={row.currency} producer={row.producer} />
              </Cell>
            ) : null}
          </Row>
        ))}
      </tbody>
    </Table>
  );
}
