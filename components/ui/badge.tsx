import type { ReactNode } from "react";
import type { CaseState, Stage } from "@/lib/domain/stages";
import { STAGE_LABEL, STATE_LABEL } from "./labels";

const TONES = {
  neutral: "bg-slate-200 text-slate-900",
  warn: "bg-amber-200 text-amber-950",
  danger: "bg-red-200 text-red-950",
  ok: "bg-emerald-200 text-emerald-950",
  info: "bg-sky-200 text-sky-950",
} as const;

export type Tone = keyof typeof TONES;

/** Text always carries the meaning; colour only helps scanning. */
export function Badge({ tone = "neutral", title, children }: { tone?: Tone; title?: string; children: ReactNode }) {
  return (
    <span title={title} className={`inline-block rounded px-2 py-0.5 text-xs font-medium ${TONES[tone]}`}>
      {children}
    </span>
  );
}

/** A stage or a state in words, in its tone, with its explanation (and its stored name) on hover. */
function Labelled({ name, words, tone }: { name: string; words?: { label: string; explains: string }; tone?: Tone }) {
  return (
    <Badge tone={tone} title={words ? `${words.explains} (${name})` : name}>
      {words?.label ?? name}
    </Badge>
  );
}

export function StageBadge({ stage }: { stage: string }) {
  return <Labelled name={stage} words={STAGE_LABEL[stage as Stage]} tone={STAGE_TONE[stage]} />;
}

export function StateBadge({ state }: { state: string }) {
  return <Labelled name={state} words={STATE_LABEL[state as CaseState]} tone={STATE_TONE[state]} />;
}

export const STAGE_TONE: Record<string, Tone> = {
  submission_uncertain: "danger",
  polling: "info",
  delivery: "warn",
  generation_failed: "neutral",
};

export const STATE_TONE: Record<string, Tone> = { parked: "warn", ready: "info", claimed: "info", resolved: "ok" };
