import type { Metadata } from "next";
import { ProviderBreakerForm, ResumeProviderButton } from "@/components/admin/provider-breaker-form";
import { ProviderPaceForm } from "@/components/admin/provider-pace-form";
import { ProviderSettingForm } from "@/components/admin/provider-setting-form";
import { Time } from "@/components/ui/time";
import { requirePageUser } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { providerCapabilityView } from "@/lib/providers/capabilities";
import { listProviderSettings } from "@/lib/services/admin/provider-settings";
import { listProviderPaces } from "@/lib/services/admin/save-provider-pace";
import { listProviderBreakers, type ProviderBreakerView } from "@/lib/services/provider-breaker/provider-breakers";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Providers" };

export default async function AdminProvidersPage() {
  const actor = await requirePageUser("admin:settings");
  const [settings, paces, breakers] = await Promise.all([
    listProviderSettings(db(), actor),
    listProviderPaces(db(), actor),
    listProviderBreakers(db(), actor),
  ]);
  return (
    <section aria-labelledby="providers-heading" className="space-y-4">
      <div>
        <h1 id="providers-heading" className="text-2xl font-semibold">
          Providers
        </h1>
        <p className="mt-1 text-sm text-slate-700">
          A provider's job list can lag behind its jobs. "No job exists" can be recorded for an uncertain submission
          only once this settling period has passed since its deadline (or submission). Too short, and a late job is
          paid for twice; a replacement is checked against the provider again before it is authorised either way.
        </p>
        <p className="mt-1 text-sm text-slate-700">
          Every worker process takes its turn from one shared request rate per provider, so together they stay within
          the provider's limit; a Retry-After one of them is given holds all of them back.
        </p>
        <p className="mt-1 text-sm text-slate-700">
          A breaker pauses a provider when too many of its recent sends ended with an unknown outcome: new send permits
          are refused until the window has passed or you resume it, so a failing provider does not turn into a pile of
          uncertain, possibly paid-twice sends.
        </p>
      </div>
      <ul className="space-y-3">
        {settings.map((row) => (
          <li key={row.provider} className="rounded border border-slate-300 bg-white p-4">
            <p className="text-sm text-slate-700">
              <strong className="text-slate-900">{row.provider}</strong>: {Math.round(row.noJobSettlingSeconds / 60)}{" "}
              min{" "}
              {row.stored && row.updatedAt ? (
                <>
                  (set <Time at={row.updatedAt} />; adapter default {Math.round(row.defaultSeconds / 60)} min)
                </>
              ) : (
                "(the adapter's default)"
              )}
            </p>
            <p className="mt-1 text-xs text-slate-700" data-testid={`capabilities-${row.provider}`}>
              {providerCapabilityView(row.provider).notes.join(" · ")}
            </p>
            <div className="mt-2">
              <ProviderSettingForm provider={row.provider} minutes={Math.round(row.noJobSettlingSeconds / 60)} />
            </div>
            <PaceLine pace={paces.find((pace) => pace.provider === row.provider)} provider={row.provider} />
            <BreakerLine breaker={breakers.find((b) => b.provider === row.provider)} provider={row.provider} />
          </li>
        ))}
      </ul>
    </section>
  );
}

function PaceLine({
  provider,
  pace,
}: {
  provider: string;
  pace: { requestsPerSecond: number | null; holdOffUntil: Date | null } | undefined;
}) {
  const rate = pace?.requestsPerSecond ?? null;
  return (
    <div className="mt-4 border-t border-slate-200 pt-3">
      <p className="text-sm text-slate-700" data-testid={`pace-${provider}`}>
        Request rate: {rate === null ? "unpaced" : `${rate} per second, all workers together`}
        {pace?.holdOffUntil ? (
          <>
            {" "}
            · holding back for the provider&apos;s Retry-After until <Time at={pace.holdOffUntil} />
          </>
        ) : null}
      </p>
      <div className="mt-2">
        <ProviderPaceForm provider={provider} requestsPerSecond={rate} />
      </div>
    </div>
  );
}

function BreakerLine({ provider, breaker }: { provider: string; breaker: ProviderBreakerView | undefined }) {
  const settings = breaker?.settings ?? null;
  return (
    <div className="mt-4 border-t border-slate-200 pt-3">
      <p className="text-sm text-slate-700" data-testid={`breaker-${provider}`}>
        Unknown-outcome breaker:{" "}
        {settings === null
          ? "none"
          : `pauses at ${settings.unknownPercent}% unknown of at least ${settings.minOutcomes} outcomes in ${settings.windowSeconds / 60} min`}
        {breaker?.pausedUntil ? (
          <>
            {" "}
            · paused: new permits refused until <Time at={breaker.pausedUntil} />
          </>
        ) : null}
      </p>
      {breaker?.pausedProducers.length ? (
        <p className="mt-1 text-sm text-red-900" data-testid={`breaker-producers-${provider}`}>
          Paused on their own outcomes:{" "}
          {breaker.pausedProducers.map((p, i) => (
            <span key={p.producer}>
              {i > 0 ? ", " : ""}
              {p.producer} until <Time at={p.pausedUntil} />
            </span>
          ))}
        </p>
      ) : null}
      <div className="mt-2 flex flex-wrap items-end gap-3">
        <ProviderBreakerForm provider={provider} settings={settings} />
        {(breaker?.pausedUntil || breaker?.pausedProducers.length) && <ResumeProviderButton provider={provider} />}
      </div>
    </div>
  );
}
