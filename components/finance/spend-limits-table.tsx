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

/**
 * Each limit with its use: replacements authorised in the rolling hour and 24 hours, or the holds a
 * producer's sends reserved in the calendar hour and the UTC day (decision 037).
 */
export function SpendLimitsTable({ rows, canSet }: { rows: SpendLimitView[]; canSet: boolean }) {
  return (
    <Table caption="Spend limits, with their use" data-testid="spend-limits">
      <TableHead
        columns={[
          "Applies to",
          "Currency",
          "Producer",
          { label: "Hour", align: "right" },
          { label: "Day", align: "right" },
          ...(canSet ? [{ label: "Actions", hidden: true }] : []),
        ]}
      />
      <tbody>
        {rows.map((row) => (
          <Row key={`${row.appliesTo}:${row.currency}:${row.producer ?? ""}:${row.model ?? ""}`}>
            <RowHeader>
              {row.appliesTo === "sends" ? "Sends" : "Replacements"}
              <span className="block text-xs font-normal text-slate-600">
                {row.appliesTo === "sends" ? "this hour, today (UTC)" : "last hour, last 24 hours"}
              </span>
            </RowHeader>
            <Cell>{row.currency}</Cell>
            <Cell>
              {row.producer ?? "every producer"}
              {row.model ? ` · model ${row.model}` : ""}
            </Cell>
            <NumCell>
              <Use used={row.usedHourMicros} limit={row.perHourMicros} currency={row.currency} />
            </NumCell>
            <NumCell>
              <Use used={row.usedDayMicros} limit={row.perDayMicros} currency={row.currency} />
            </NumCell>
            {canSet ? (
              <Cell>
                <ClearSpendLimitButton
                  appliesTo={row.appliesTo}
                  currency={row.currency}
                  producer={row.producer}
                  model={row.model}
                />
              </Cell>
            ) : null}
          </Row>
        ))}
      </tbody>
    </Table>
  );
}
