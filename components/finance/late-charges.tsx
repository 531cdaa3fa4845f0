import Link from "next/link";
import { Money } from "@/components/ui/money";
import { Cell, Row, Table, TableHead } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import type { LateChargeItem } from "@/lib/services/hold/list-late-charges";
import { LateChargeDecision } from "./late-charge-decision";

/**
 * DESIGN rule 18: jobs the provider completed (and charged for) after their hold was released or
 * written off. Each stays here until finance records what it did about it.
 */
export function LateCharges({ items, canDecide }: { items: LateChargeItem[]; canDecide: boolean }) {
  return (
    <Table caption="Charged after release" data-testid="charged-after-release">
      <TableHead columns={["Operation", "Charged", "How the hold ended", "Proved by", "Decision"]} />
      <tbody>
        {items.map((item) => (
          <Row key={item.id} data-hold-id={item.holdId}>
            <Cell>
              {item.caseId ? (
                <Link href={`/cases/${item.caseId}`} className="text-brand underline">
                  {item.operationId}
                </Link>
              ) : (
                item.operationId
              )}
              <span className="block text-xs text-slate-600">
                hold <span data-technical>{item.holdId}</span> · {item.producer} · {item.provider} {item.model}
              </span>
            </Cell>
            <Cell>
              <Money micros={item.chargedMicros} currency={item.currency} />
              <span className="block text-xs text-slate-600">
                charged <Time at={item.chargedAt} />
              </span>
            </Cell>
            <Cell>
              {item.writtenOff ? "written off" : "released"}: {item.releaseNote ?? "—"}
            </Cell>
            <Cell>{item.how ?? "—"}</Cell>
            <Cell>
              {canDecide ? (
                <LateChargeDecision item={item} />
              ) : (
                <span className="text-xs text-slate-600">view only</span>
              )}
            </Cell>
          </Row>
        ))}
      </tbody>
    </Table>
  );
}
