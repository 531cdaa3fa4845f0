import { Badge, type Tone } from "@/components/ui/badge";
import { Time } from "@/components/ui/time";
import {
  describeAttempt,
  foundGenerationFailed,
  type LastAttempt,
  type Party,
  type WaitingOn,
} from "@/lib/domain/case-progress";

const PARTY: Record<Party, { label: string; tone: Tone }> = {
  reviewer: { label: "a reviewer", tone: "warn" },
  worker: { label: "the worker", tone: "info" },
  provider: { label: "the provider", tone: "info" },
  finance: { label: "finance", tone: "warn" },
  producer: { label: "the producer", tone: "info" },
  nobody: { label: "nobody", tone: "ok" },
};

/** Who or what the case waits on, and why: the first thing a reader of the queue or the case needs. */
export function WaitingOnText({
  waiting,
  short = false,
  testId = "waiting-on",
}: {
  waiting: WaitingOn;
  short?: boolean;
  /** A second copy on the same row (the phone layout's) names itself apart. */
  testId?: string;
}) {
  const party = PARTY[waiting.party];
  const done = waiting.party === "nobody";
  return (
    <span data-testid={testId}>
      <Badge tone={party.tone}>{done ? "done" : `waiting on ${party.label}`}</Badge>
      {/* A finished case's reason is the badge itself ("done"): said twice, it read "done done". */}
      {short || done ? null : (
        <span className="ml-2">
          {waiting.why}
          {waiting.until ? (
            <>
              {" "}
              until <Time at={waiting.until} />
            </>
          ) : null}
        </span>
      )}
    </span>
  );
}

/** What the last recovery did, above everything else when it failed: a failed attempt must not look like a new case. */
export function LastAttemptBanner({ attempt }: { attempt: LastAttempt | null }) {
  if (!attempt) return null;
  const text = describeAttempt(attempt);
  if (!attempt.failed) {
    return (
      <p data-testid="last-attempt" className="text-sm text-slate-700">
        Last attempt <Time at={attempt.at} />: {text}.
      </p>
    );
  }
  return (
    <p
      data-testid="last-attempt"
      role="status"
      className="rounded border border-red-400 bg-red-50 p-3 text-sm text-red-950"
    >
      {/* A check that worked and found the generation failed did not fail itself (decision 061). */}
      <strong>
        Last attempt <Time at={attempt.at} />
        {foundGenerationFailed(attempt) ? ":" : " failed."}
      </strong>{" "}
      {text}. The decisions that do not repeat it come first.
    </p>
  );
}
