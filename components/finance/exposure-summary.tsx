import { Money } from "@/components/ui/money";
import { Time } from "@/components/ui/time";
import type { Micros } from "@/lib/domain/money";
import { plural } from "./words";

type Row = { currency: string; count: number; micros: Micros; oldestAt: string };

/**
 * Money held for submissions that may or may not have been accepted by the provider. It cannot
 * be released until a reviewer reconciles the case (rule 6), so it is shown apart and first.
 */
export function ExposureSummary({ rows }: { rows: Row[] }) {
  if (rows.length === 0) {
    return (
      <p className="mt-4 rounded border border-slate-300 bg-white px-4 py-3 text-sm text-slate-700">
        <span className="font-medium">No exposure:</span> no money is held for an open uncertain submission.
      </p>
    );
  }
  return (
    <section
      aria-labelledby="exposure-heading"
      className="mt-4 rounded border-2 border-amber-600 bg-amber-50 px-4 py-3"
      data-testid="exposure"
    >
      <h2 id="exposure-heading" className="font-semibold text-amber-950">
        <span aria-hidden="true">⚠ </span>Exposure: held for uncertain submissions
      </h2>
      <p className="mt-1 text-sm text-amber-950">
        A create call may have been accepted without an answer; this money stays held until a reviewer reconciles the
        case. These holds are marked “Exposure” in the list below.
      </p>
      <ul className="mt-2 flex flex-wrap gap-x-8 gap-y-1 text-sm text-amber-950">
        {rows.map((row) => (
          <li key={row.currency}>
            <span className="text-lg font-semibold">
              <Money micros={row.micros} currency={row.currency} />
            </span>{" "}
            in {plural(row.count, "hold")}, oldest since <Time at={row.oldestAt} />
          </li>
        ))}
      </ul>
    </section>
  );
}
