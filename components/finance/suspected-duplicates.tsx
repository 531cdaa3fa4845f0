import Link from "next/link";
import { Money } from "@/components/ui/money";
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
    <table className="w-full text-left text-sm" data-testid="suspected-duplicates">
      <caption className="sr-only">Suspected duplicate generations</caption>
      <thead>
        <tr>
          {showCase ? <th scope="col">Operation</th> : null}
          <th scope="col">Original job</th>
          <th scope="col">Original attempt</th>
          <th scope="col">Replacement</th>
          <th scope="col">Replacement status</th>
        </tr>
      </thead>
      <tbody>
        {items.map((item) => (
          <tr key={item.id} className="border-t border-slate-200">
            {showCase ? (
              <td>
                <Link href={`/cases/${item.caseId}`} className="text-brand underline">
                  {item.operationId}
                </Link>
              </td>
            ) : null}
            <td>
              {item.provider} <code>{item.providerJobId}</code>
            </td>
            <td>
              <CostCell cost={item.original} />
            </td>
            <td>
              <CostCell cost={item.replacement} />
            </td>
            <td>{item.withdrawn ? "withdrawn before the producer took it" : "already taken by the producer"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
