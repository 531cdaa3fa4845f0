import { RoleLink } from "@/components/console/role-link";
import { moneyText } from "@/components/ui/money";
import type { Role } from "@/lib/domain/roles";
import type { OverviewStats } from "@/lib/services/overview/overview-stats";

/** Rule 13's flags: money held on closed cases and cases past their deadline, each a link to its list. */
export function CaseFlagsSummary({
  stats,
  roles,
}: {
  stats: Pick<OverviewStats, "needsDecision" | "escalatedOpen" | "chargedAfterRelease">;
  roles: readonly Role[];
}) {
  const late = stats.chargedAfterRelease.reduce((sum, row) => sum + row.count, 0);
  const count = stats.needsDecision.reduce((sum, row) => sum + row.count, 0);
  const money = stats.needsDecision.map((row) => moneyText(row.micros, row.currency)).join(" + ");
  return (
    <dl className="grid grid-cols-1 gap-3 md:grid-cols-2">
      <div
        data-testid="overview-needs-decision"
        className={`rounded border p-3 ${count > 0 ? "border-amber-500 bg-amber-50" : "border-slate-300 bg-white"}`}
      >
        <dt className="text-sm text-slate-700">Resolved, hold open — needs a decision</dt>
        <dd className="text-xl font-semibold">
          {count} {count > 0 ? <span className="text-base font-normal">({money})</span> : null}
        </dd>
        {count > 0 ? (
          <dd className="text-sm">
            <RoleLink
              roles={roles}
              permission="hold:read"
              href="/finance?view=needs_decision#holds"
              otherwise="Finance decides these holds."
            >
              Decide in finance
            </RoleLink>{" "}
            ·{" "}
            <a className="text-brand underline" href="/queue?flag=hold_open">
              Show in the queue
            </a>
          </dd>
        ) : null}
      </div>
      <div data-testid="overview-escalated" className="rounded border border-slate-300 bg-white p-3">
        <dt className="text-sm text-slate-700">Open cases past their deadline (escalated)</dt>
        <dd className="text-xl font-semibold">{stats.escalatedOpen}</dd>
        {stats.escalatedOpen > 0 ? (
          <dd className="text-sm">
            <a className="text-brand underline" href="/queue?flag=escalated">
              Show in the queue
            </a>
          </dd>
        ) : null}
      </div>
      <div
        data-testid="overview-charged-after-release"
        className={`rounded border p-3 ${late > 0 ? "border-red-500 bg-red-50" : "border-slate-300 bg-white"}`}
      >
        <dt className="text-sm text-slate-700">Charged after release — finance to decide</dt>
        <dd className="text-xl font-semibold">
          {late}{" "}
          {late > 0 ? (
            <span className="text-base font-normal">
              ({stats.chargedAfterRelease.map((row) => moneyText(row.micros, row.currency)).join(" + ")})
            </span>
          ) : null}
        </dd>
        {late > 0 ? (
          <dd className="text-sm">
            <RoleLink
              roles={roles}
              permission="hold:read"
              href="/finance#charged-after-release"
              otherwise="Finance decides these charges."
            >
              Decide in finance
            </RoleLink>
          </dd>
        ) : null}
      </div>
    </dl>
  );
}
