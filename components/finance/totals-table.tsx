import type { ReactNode } from "react";
import { Money } from "@/components/ui/money";
import { Cell, NumCell, Row, RowHeader, Table, TableHead } from "@/components/ui/table";
import type { Micros } from "@/lib/domain/money";

/** A column that names the group a row sums (provider, model, day...). */
export type GroupColumn<R> = { label: string; value: (row: R) => ReactNode };
/** A column of the row's money or count; `flagged` marks money someone must look at. */
export type FigureColumn<R> = {
  label: string;
  micros?: (row: R) => Micros;
  count?: (row: R) => number;
  flagged?: (row: R) => boolean;
  cellProps?: Record<string, string>;
};

/**
 * Money summed per group, one row per group and currency: the finance page's split per provider
 * and model and the usage page's reserved-against-charged per day are this one table.
 */
export function TotalsTable<R extends { currency: string }>({
  caption,
  groups,
  figures,
  rows,
  keyOf,
  rowProps,
}: {
  caption: string;
  groups: GroupColumn<R>[];
  figures: FigureColumn<R>[];
  rows: R[];
  keyOf: (row: R) => string;
  rowProps?: (row: R) => Record<string, string>;
}) {
  const [first, ...rest] = groups;
  return (
    <Table caption={caption}>
      <TableHead
        columns={[
          ...groups.map((group) => group.label),
          ...figures.map((figure) => ({ label: figure.label, align: "right" as const })),
        ]}
      />
      <tbody>
        {rows.map((row) => (
          <Row key={keyOf(row)} {...rowProps?.(row)}>
            {first ? <RowHeader>{first.value(row)}</RowHeader> : null}
            {rest.map((group) => (
              <Cell key={group.label}>{group.value(row)}</Cell>
            ))}
            {figures.map((figure) => (
              <NumCell key={figure.label} {...figure.cellProps}>
                {figure.micros ? <Money micros={figure.micros(row)} currency={row.currency} /> : figure.count?.(row)}
                {figure.flagged?.(row) ? <span className="ml-1 text-amber-800">⚑ flagged</span> : null}
              </NumCell>
            ))}
          </Row>
        ))}
      </tbody>
    </Table>
  );
}
