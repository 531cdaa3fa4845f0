import Link from "next/link";
import { PAUSE_KIND_WORDS } from "@/components/ui/code-words";
import { Time } from "@/components/ui/time";
import { type PauseTarget, pauseCovering, type ScopePause } from "@/lib/domain/scope-pauses";

/**
 * The pauses a page is affected by (decision 064): every running pause a person set that the person
 * may see, or, given a case (`target`), the one that stops its recoveries. The breaker's pauses stop
 * sends, not recoveries (decision 070): the overview's breaker banner and the pauses page show them.
 * Nothing at all while nothing is paused.
 */
export function PauseBanner({ pauses, target }: { pauses: readonly ScopePause[]; target?: PauseTarget }) {
  const all = pauses.filter((pause) => pause.cause === "person");
  const covering = target ? pauseCovering(all, target, false) : null;
  const shown = target ? (covering ? [covering] : []) : all;
  if (shown.length === 0) return null;
  return (
    <section aria-label="Paused work" className="mb-3 space-y-2" data-testid="pause-banner">
      {shown.map((pause) => (
        <PauseLine key={`${pause.kind}:${pause.value}`} pause={pause} forCase={Boolean(target)} />
      ))}
    </section>
  );
}

function PauseLine({ pause, forCase }: { pause: ScopePause; forCase: boolean }) {
  const what = `${PAUSE_KIND_WORDS[pause.kind]} ${pause.value}`;
  return (
    <p className="rounded border border-amber-600 bg-amber-50 p-3 text-sm text-amber-950">
      <strong className="font-semibold">
        {forCase ? `This case is paused: recoveries and sends of ${what} are paused.` : `Paused: ${what}.`}
      </strong>{" "}
      {forCase
        ? "Approvals are still recorded, but the worker carries none out and no new send permit is issued until it is resumed."
        : "The worker carries out no approved recovery of it and no new send permit is issued until it is resumed."}{" "}
      Paused by {pause.pausedBy} on <Time at={pause.pausedAt} />, because: “{pause.reason}”.{" "}
      <Link href="/pauses" className="underline">
        See pauses
      </Link>
      .
    </p>
  );
}
