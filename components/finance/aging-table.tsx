import { Money } from "@/components/ui/money";
import { formatWhen } from "./format";

type Row = { currency: string; bucket: string; label: string; count: number; micros: number; oldestAt: string };

/** Open holds by how long they have waited for a decision. */
export function AgingTable({ rows }: { rows: Row[] }) {
  return (
    <table className="w-full border-collapse bg-white text-left text-sm">
      <caption className="sr-only">Money still held, by age of the hold</caption>
      <thead>
        <tr className="border-b border-slate-300">
          <th scope="col" className="px-3 py-2 font-medium">
            Age
          </th>
          <th scope="col" className="px-3 py-2 font-medium">
            Currency
          </th>
          <th scope="col" className="px-3 py-2 text-right font-medium">
            Holds
          </th>
          <th scope="col" className="px-3 py-2 text-right font-medium">
            Held
          </th>
          <th scope="col" className="px-3 py-2 font-medium">
            Oldest since
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={`${row.currency}:${row.bucket}`} className="border-b border-slate-200">
            <th scope="row" className="px-3 py-2 font-medium">
              {row.label}
            </th>
            <td className="px-3 py-2">{row.currency}</td>
            <td className="px-3 py-2 text-right tabular-nums">{row.count}</td>
            <td className="px-3 py-2 text-right">
              <Money micros={row.micros} currency={row.currency} />
            </td>
            <td className="px-3 py-2">{formatWhen(row.oldestAt)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
