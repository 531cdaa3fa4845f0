import { Money } from "@/components/ui/money";
import type { StatusTotals } from "@/lib/services/finance/finance-totals";

type Row = StatusTotals & { currency: string; provider: string; model: string };

const th = "px-3 py-2 font-medium";
const td = "px-3 py-2 text-right tabular-nums";

/** The same split per provider and model, to see which integration the money is stuck in. */
export function ProviderModelTable({ rows }: { rows: Row[] }) {
  return (
    <table className="w-full border-collapse bg-white text-left text-sm">
      <caption className="sr-only">Holds by provider and model, per currency</caption>
      <thead>
        <tr className="border-b border-slate-300">
          <th scope="col" className={th}>
            Provider
          </th>
          <th scope="col" className={th}>
            Model
          </th>
          <th scope="col" className={th}>
            Currency
          </th>
          <th scope="col" className={`${th} text-right`}>
            Open holds
          </th>
          <th scope="col" className={`${th} text-right`}>
            Held
          </th>
          <th scope="col" className={`${th} text-right`}>
            Settled
          </th>
          <th scope="col" className={`${th} text-right`}>
            Released
          </th>
          <th scope="col" className={`${th} text-right`}>
            Overage
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={`${row.currency}:${row.provider}:${row.model}`} className="border-b border-slate-200">
            <th scope="row" className="px-3 py-2 font-medium">
              {row.provider}
            </th>
            <td className="px-3 py-2">{row.model}</td>
            <td className="px-3 py-2">{row.currency}</td>
            <td className={td}>{row.held.count}</td>
            <td className={td}>
              <Money micros={row.held.micros} currency={row.currency} />
            </td>
            <td className={td}>
              <Money micros={row.settled.micros} currency={row.currency} />
            </td>
            <td className={td}>
              <Money micros={row.released.micros} currency={row.currency} />
            </td>
            <td className={td}>
              <Money micros={row.overage.micros} currency={row.currency} />
              {row.overage.count ? <span className="ml-1 text-amber-800">⚑ flagged</span> : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
