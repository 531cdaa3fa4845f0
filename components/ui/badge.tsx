import type { ReactNode } from "react";

const TONES = {
  neutral: "bg-slate-200 text-slate-900",
  warn: "bg-amber-200 text-amber-950",
  danger: "bg-red-200 text-red-950",
  ok: "bg-emerald-200 text-emerald-950",
  info: "bg-sky-200 text-sky-950",
} as const;

export type Tone = keyof typeof TONES;

/** Text always carries the meaning; colour only helps scanning. */
export function Badge({ tone = "neutral", children }: { tone?: Tone; children: ReactNode }) {
  return <span className={`inline-block rounded px-2 py-0.5 text-xs font-medium ${TONES[tone]}`}>{children}</span>;
}

export const STAGE_TONE: Record<string, Tone> = {
  submission_uncertain: "danger",
  polling: "info",
  delivery: "warn",
  generation_failed: "neutral",
};

export const STATE_TONE: Record<string, Tone> = { parked: "warn", ready: "info", claimed: "info", resolved: "ok" };
