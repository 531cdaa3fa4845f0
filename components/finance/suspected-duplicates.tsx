import Link from "next/link";
import { Money } from "@/components/ui/money";
import { Cell, Row, Table, TableHead } from "@/components/ui/table";
import type { SuspectedDuplicateItem } from "@/lib/services/case/list-suspected-duplicates";

function CostCell({ cost }: { cost: SuspectedDuplicateItem["original"] }) {
  if (!cost) return <span className="text-slate-600">no hold</span>;
  return (
    <>
      <Money micros={cost.amountMicros} currency={cost.currency} />{" "}
      <span className="text-slate-600">({cost.status})</span>
    </>
  );
}

/**
 * Rule 14, afterwards: the original job of a replaced attempt turned up, so the provider may charge
 * both. Shown on the Finance page (all) and on the case page (its own), with both costs.
 */
export function SuspectedDuplicates({
  items,
  showCase = true,
}: {
  items: SuspectedDuplicateItem[];
  showCase?: boolean;
}) {
  return (
    <Table caption="Suspected duplicate generations" data-testid="suspected-duplicates">
      <TableHead
        columns={[
          ...(showCase ? ["Operation"] : []),
          "Original job",
          "Original attempt",
          "Replacement",
          "Replacement status",
        ]}
      />
      <tbody>
        {items.map((item) => (
          <Row key={item.id}>
            {showCase ? (
              <Cell>
                <Link href={`/cases/${item.caseId}`} className="text-brand underline">
                  {item.operationId}
                </Link>
              </Cell>
            ) : null}
            <Cell>
              {item.provider} <code>{item.providerJobId}</code>
            </Cell>
            <Cell>
              <CostCell cost={item.original} />
            </Cell>
            <Cell>
              <CostCell cost={item.replacement} />
            </Cell>
            <Cell>{item.withdrawn ? "withdrawn before the producer took it" : "already taken by the producer"}</Cell>
          </Row>
        ))}
      </tbody>
    </Table>
  );
}
