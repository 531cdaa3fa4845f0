import type { Metadata } from "next";
import Link from "next/link";
import { PauseForm } from "@/components/pauses/pause-form";
import { ResumePauseForm } from "@/components/pauses/resume-pause-form";
import { PAUSE_KIND_WORDS } from "@/components/ui/code-words";
import { Time } from "@/components/ui/time";
import { requirePageUser } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { inProducerScope } from "@/lib/domain/producer-scope";
import { can } from "@/lib/domain/roles";
import { pauseNeedsEveryProducer, type ScopePause } from "@/lib/domain/scope-pauses";
import { PROVIDER_NAMES } from "@/lib/providers/registry";
import { queueFilterOptions } from "@/lib/services/case/queue-filter-options";
import { listScopePauses } from "@/lib/services/scope-pause/list-scope-pauses";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Pauses" };

/**
 * The pause switch (decisions 064, 070): what is paused, by whom or by the unknown-outcome breaker,
 * and why, with a resume for each (a breaker's on Admin → Providers, where its settings are), and a
 * form to pause a provider, producer or model, for the people who may.
 */
export default async function PausesPage() {
  const user = await requirePageUser("case:read");
  const [pauses, options] = await Promise.all([listScopePauses(db(), user), queueFilterOptions(db(), user)]);
  const pauser = can(user.roles, "pause:set");
  const everyProducer = user.producers === null;
  const mayResume = (pause: ScopePause) =>
    pauser && (pauseNeedsEveryProducer(pause.kind) ? everyProducer : inProducerScope(user.producers, pause.value));
  const admin = can(user.roles, "admin:settings");
  return (
    <section aria-labelledby="pauses-heading" className="space-y-6">
      <div>
        <h1 id="pauses-heading" className="text-2xl font-semibold">
          Pauses
        </h1>
        <p className="mt-1 text-sm text-slate-700">
          While a provider, producer or model is paused, the worker carries out none of its approved recoveries
          (approvals are still recorded) and no new send permit is issued for it. A pause lasts until someone resumes
          it.
        </p>
        <p className="mt-1 text-sm text-slate-700">
          The unknown-outcome breaker also pauses a provider, or one producer at a provider, when too many recent sends
          ended with an unknown outcome. Its pause stops new sends only and ends on its own after the breaker&apos;s
          window. A person&apos;s pause and the breaker&apos;s pause of the same provider are resumed separately.
        </p>
      </div>
      <section aria-labelledby="running-heading">
        <h2 id="running-heading" className="text-lg font-semibold">
          Paused now
        </h2>
        {pauses.length === 0 ? (
          <p className="mt-2 rounded border border-dashed border-slate-400 bg-white p-4 text-sm text-slate-700">
            Nothing is paused.
          </p>
        ) : (
          <ul className="mt-2 space-y-3">
            {pauses.map((pause) => {
              const label = `${PAUSE_KIND_WORDS[pause.kind]} ${pause.value}`;
              const byBreaker = pause.cause === "breaker";
              const where = pause.atProvider ? ` at provider ${pause.atProvider}` : "";
              return (
                <li
                  key={`${pause.cause}:${pause.kind}:${pause.value}:${pause.atProvider}`}
                  className="rounded border border-slate-300 bg-white p-3 text-sm"
                  data-cause={pause.cause}
                >
                  <p className="font-semibold">
                    Paused: {label}
                    {where} {byBreaker ? "(by the unknown-outcome breaker, sends only)" : "(by a person)"}
                  </p>
                  {byBreaker ? (
                    <p className="mt-1">
                      Since <Time at={pause.pausedAt} />, because: “{pause.reason}” It ends on its own at{" "}
                      {pause.until ? <Time at={pause.until} /> : "the end of the window"}.
                    </p>
                  ) : (
                    <p className="mt-1">
                      By {pause.pausedBy} on <Time at={pause.pausedAt} />, because: “{pause.reason}”
                    </p>
                  )}
                  {byBreaker ? (
                    admin ? (
                      <p className="mt-2">
                        <Link href="/admin/providers" className="underline">
                          Resume it or change the breaker on the providers page
                        </Link>
                      </p>
                    ) : (
                      <p className="mt-2 text-slate-700">An admin can resume it on the providers page.</p>
                    )
                  ) : mayResume(pause) ? (
                    <div className="mt-2">
                      <ResumePauseForm kind={pause.kind} value={pause.value} label={label} />
                    </div>
                  ) : null}
                </li>
              );
            })}
          </ul>
        )}
      </section>
      {pauser ? (
        <section aria-labelledby="pause-heading" className="rounded border border-slate-300 bg-white p-4">
          <h2 id="pause-heading" className="mb-3 text-lg font-semibold">
            Pause something
          </h2>
          <PauseForm
            everyProducer={everyProducer}
            suggestions={everyProducer ? [...PROVIDER_NAMES, ...options.producers] : options.producers}
          />
        </section>
      ) : null}
    </section>
  );
}
