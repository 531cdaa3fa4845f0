import Link from "next/link";
import { moneyText } from "@/components/ui/money";
import type { HoldOpenFigure } from "@/lib/services/case/case-flags";
import { financeHref } from "./finance-href";

/**
 * Rule 13: a resolved case whose hold is still open waits for finance alone, so it is named at the
 * top with its money and a link to exactly those holds (settled or released from their rows).
 */
export function NeedsDecisionSummary({
  rows,
  active,
  producer,
}: {
  rows: HoldOpenFigure[];
  active: boolean;
  producer?: string;
}) {
  const count = rows.reduce((sum, row) => sum + row.count, 0);
  if (count === 0 && !active) return null;
  return (
    <div
      role="status"
      data-testid="finance-needs-decision"
      className="mt-4 rounded border border-amber-500 bg-amber-50 p-3 text-sm text-amber-950"
    >
      <p className="font-semibold">
        Resolved, hold open — needs a decision: {count} {count === 1 ? "case" : "cases"}
        {count > 0 ? ` (${rows.map((row) => moneyText(row.micros, row.currency)).join(" + ")})` : ""}
      </p>
      <p className="mt-1">
        These cases are closed, so nothing but a finance decision will settle or release their holds.{" "}
        {active ? (
          <Link className="text-brand underline" href={financeHref({ status: "held" }, producer)}>
            Show all held holds
          </Link>
        ) : (
          <Link className="text-brand underline" href={financeHref({ view: "needs_decision" }, producer)}>
            Show only these holds
          </Link>
        )}
      </p>
    </div>
  );
}
