import Link from "next/link";
import { Money } from "@/components/ui/money";
import { Cell, Row, Table, TableHead } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import type { DuplicateOutputItem, DuplicateOutputSide } from "@/lib/services/case/list-duplicate-outputs";

function SideCells({ side }: { side: DuplicateOutputSide }) {
  if (side.hidden) {
    // Decision 072: another producer's case outside the reader's producers; only that it exists.
    return (
      <>
        <Cell>another producer's operation</Cell>
        <Cell>
          <span className="text-slate-600">not shown</span>
        </Cell>
      </>
    );
  }
  return (
    <>
      <Cell>
        <Link href={`/cases/${side.caseId}`} className="text-brand underline">
          {side.operationId}
        </Link>
        <span className="block text-xs text-slate-600">{side.producer}</span>
      </Cell>
      <Cell>
        {side.cost ? (
          <>
            <Money micros={side.cost.amountMicros} currency={side.cost.currency} />{" "}
            <span className="text-slate-600">({side.cost.status})</span>
          </>
        ) : (
          <span className="text-slate-600">no hold</span>
        )}
      </Cell>
    </>
  );
}

/**
 * Decision 072: pairs of paid jobs that delivered the same video, newest first, with what each
 * attempt holds or was charged, so finance can ask the provider for one of the two charges back.
 */
export function DuplicateOutputs({ items }: { items: DuplicateOutputItem[] }) {
  return (
    <Table caption="Same video delivered twice" data-testid="duplicate-outputs">
      <TableHead columns={["Found", "Operation", "Held or charged", "Same video as operation", "Held or charged"]} />
      <tbody>
        {items.map((item) => (
          <Row key={item.id}>
            <Cell>
              <Time at={item.detectedAt} />
            </Cell>
            <SideCells side={item.first} />
            <SideCells side={item.second} />
          </Row>
        ))}
      </tbody>
    </Table>
  );
}
