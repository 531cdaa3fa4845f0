import { RoleLink } from "@/components/console/role-link";
import { Time } from "@/components/ui/time";
import type { Role } from "@/lib/domain/roles";
import type { OverviewStats } from "@/lib/services/overview/overview-stats";

/** Providers whose sends are paused by the unknown-outcome breaker, and who can resume them. */
export function PausedProviders({
  paused,
  roles,
}: {
  paused: OverviewStats["pausedProviders"];
  roles: readonly Role[];
}) {
  return paused.map((p) => (
    <p key={p.provider} role="alert" className="rounded border border-red-400 bg-red-50 p-3 font-medium text-red-900">
      Sends to {p.provider} are paused until <Time at={p.pausedUntil} />: too many recent sends ended with an unknown
      outcome, so new permits are refused. Reconcile the uncertain submissions; an admin can resume it under{" "}
      <RoleLink
        roles={roles}
        permission="admin:settings"
        href="/admin/providers"
        className="underline"
        otherwise="Admin → Providers"
      >
        Admin → Providers
      </RoleLink>
      .
    </p>
  ));
}
