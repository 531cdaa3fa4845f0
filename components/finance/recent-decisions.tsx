import { Money } from "@/components/ui/money";
import { Cell, NumCell, Row, RowHeader, Table, TableHead } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import type { RecentDecision, RecentDecisionKind } from "@/lib/services/finance/finance-recent-decisions";

const DECISION_WORDS: Record<RecentDecisionKind, string> = {
  settled: "Settled",
  released: "Released",
  written_off: "Written off",
  late_charge_acknowledged: "Charge after release decided",
  replacement_authorized: "Replacement authorised",
  replacement_declined: "Replacement declined",
};

/** What the amount of each kind of decision is, so the one Amount column reads right. */
const AMOUNT_WORDS: Record<RecentDecisionKind, string> = {
  settled: "charged",
  released: "released",
  written_off: "written off",
  late_charge_acknowledged: "charged after release",
  replacement_authorized: "new hold",
  replacement_declined: "asked for",
};

/** Finance's last decisions on money, newest first: what each was, on which operation, by whom and when. */
export function RecentDecisions({ items }: { items: RecentDecision[] }) {
  return (
    <Table caption="Recently decided, newest first" data-testid="recent-decisions">
      <TableHead
        columns={[
          "Operation",
          "Decision",
          { label: "Amount", align: "right" },
          "Decided by",
          { label: "Decided at (UTC)", sort: "descending" },
        ]}
      />
      <tbody>
        {items.map((item) => (
          <Row key={item.key} data-testid="recent-decision">
            <RowHeader className="font-normal">
              <span className="font-medium">{item.operationId}</span>
              <span className="block text-xs text-slate-600">
                {item.producer}
                {item.holdId ? (
                  <>
                    {" · hold "}
                    <span data-technical>{item.holdId}</span>
                  </>
                ) : null}
              </span>
            </RowHeader>
            <Cell>{DECISION_WORDS[item.kind]}</Cell>
            <NumCell>
              <Money micros={item.amountMicros} currency={item.currency} />
              <span className="block text-xs text-slate-600">
                {AMOUNT_WORDS[item.kind]}
                {item.releasedMicros ? (
                  <>
                    {"; "}
                    <Money micros={item.releasedMicros} currency={item.currency} /> released
                  </>
                ) : null}
              </span>
            </NumCell>
            <Cell className="break-words">{item.decidedBy ?? "—"}</Cell>
            <Cell>
              <Time at={item.decidedAt} />
            </Cell>
          </Row>
        ))}
      </tbody>
    </Table>
  );
}
