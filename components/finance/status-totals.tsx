import { Money } from "@/components/ui/money";
import type { StatusTotals } from "@/lib/services/finance/finance-totals";
import { plural } from "./format";

type Row = StatusTotals & { currency: string };

const th = "px-3 py-2 font-medium";
const td = "px-3 py-2 align-top";

function Amount({ micros, currency, note }: { micros: number; currency: string; note: string }) {
  return (
    <>
      <Money micros={micros} currency={currency} />
      <span className="block text-xs text-slate-600">{note}</span>
    </>
  );
}

/** Holds by status per currency. Held + settled + released always equals what was reserved. */
export function StatusTotalsTable({ rows }: { rows: Row[] }) {
  return (
    <table className="w-full border-collapse bg-white text-left text-sm" aria-describedby="status-totals-note">
      <caption className="sr-only">Holds by status, per currency</caption>
      <thead>
        <tr className="border-b border-slate-300">
          <th scope="col" className={th}>
            Currency
          </th>
          <th scope="col" className={th}>
            Held (open)
          </th>
          <th scope="col" className={th}>
            Settled (charged)
          </th>
          <th scope="col" className={th}>
            Released
          </th>
          <th scope="col" className={th}>
            Overage (flagged)
          </th>
          <th scope="col" className={th}>
            Reserved in total
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.currency} className="border-b border-slate-200" data-testid={`totals-${row.currency}`}>
            <th scope="row" className={`${td} font-semibold`}>
              {row.currency}
            </th>
            <td className={td} data-testid="held">
              <Amount micros={row.held.micros} currency={row.currency} note={plural(row.held.count, "hold")} />
            </td>
            <td className={td} data-testid="settled">
              <Amount
                micros={row.settled.micros}
                currency={row.currency}
                note={`${plural(row.settled.count, "hold")}${row.settled.partial ? `, ${row.settled.partial} partial` : ""}`}
              />
            </td>
            <td className={td} data-testid="released">
              <Amount
                micros={row.released.micros}
                currency={row.currency}
                note={`${plural(row.released.count, "hold")} in full`}
              />
            </td>
            <td className={`${td} ${row.overage.count ? "bg-amber-50" : ""}`} data-testid="overage">
              <Amount
                micros={row.overage.micros}
                currency={row.currency}
                note={row.overage.count ? `⚑ ${plural(row.overage.count, "entry", "entries")} to review` : "none"}
              />
            </td>
            <td className={td}>
              <Money micros={row.reservedMicros} currency={row.currency} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
