import { Money } from "@/components/ui/money";
import { Cell, NumCell, Row, RowHeader, Table, TableHead } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import type { HoldsNotInvoiced } from "@/lib/services/usage/list-holds-not-invoiced";

/**
 * The holds behind "Charged, on no imported line" (decision 084). A send that records no job may be
 * one whose job another send's shop named as its own: the move form below takes it there.
 */
export function HoldsNotInvoicedTable({ holds }: { holds: HoldsNotInvoiced }) {
  return (
    <Table caption="Holds charged that no imported line names, newest first">
      <TableHead
        columns={[
          "Operation",
          "Provider",
          "Send",
          "Its job",
          "Hold",
          { label: "Charged", align: "right" },
          "Charged at",
        ]}
      />
      <tbody>
        {holds.map((hold) => (
          <Row key={`${hold.producer}:${hold.holdId}`} data-hold={hold.holdId}>
            <RowHeader>
              {hold.caseId ? (
                <a className="text-brand underline" href={`/cases/${hold.caseId}`}>
                  {hold.operationId}
                </a>
              ) : (
                hold.operationId
              )}{" "}
              <span className="text-xs text-slate-700">({hold.producer})</span>
            </RowHeader>
            <Cell>{hold.provider}</Cell>
            <Cell>{hold.attemptId}</Cell>
            <Cell>
              {hold.providerJobId ?? (
                <span className="text-amber-900">none recorded: its job may be on another send</span>
              )}
            </Cell>
            <Cell>
              {hold.holdId} ({hold.status})
            </Cell>
            <NumCell>
              <Money micros={hold.chargedMicros} currency={hold.currency} />
            </NumCell>
            <Cell>
              <Time at={hold.chargedAt} />
            </Cell>
          </Row>
        ))}
      </tbody>
    </Table>
  );
}
