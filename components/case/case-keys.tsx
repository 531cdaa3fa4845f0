"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";

/** Where focus goes for a decision: its first control that can be used, else the panel itself. */
export function focusDecision(): void {
  const panel = document.getElementById("decision");
  if (!panel) return;
  const first = panel.querySelector<HTMLElement>(
    "input:not([disabled]), textarea:not([disabled]), select:not([disabled]), button:not([disabled])",
  );
  (first ?? panel).focus();
  (first ?? panel).scrollIntoView({ block: "nearest" });
}

/** Typing in a field, or working in the decision panel: the page's keys stay out of the way. */
function busy(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName)) return true;
  return target.closest("#decision") !== null;
}

/**
 * The case page's keys, as the queue's (j and k move, docs/decisions/062): j the next case of the
 * view, k the previous one, Escape back to the queue, d to the decision. The hint says so, and its
 * mark (data-keys) tells a script when the keys count, since keys typed before hydration go nowhere.
 */
export function CaseKeys({ previous, next, queue }: { previous: string | null; next: string | null; queue: string }) {
  const router = useRouter();
  const [on, setOn] = useState(false);
  useEffect(() => {
    function onKey(event: KeyboardEvent) {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.isComposing) return;
      if (busy(event.target)) return;
      if (event.key === "j" && next) router.push(next);
      else if (event.key === "k" && previous) router.push(previous);
      else if (event.key === "Escape") router.push(queue);
      else if (event.key === "d") focusDecision();
      else return;
      event.preventDefault();
    }
    window.addEventListener("keydown", onKey);
    setOn(true);
    return () => window.removeEventListener("keydown", onKey);
  }, [router, previous, next, queue]);
  return (
    <p className="hidden text-xs text-slate-700 md:block" data-keys={on ? "on" : undefined}>
      Keys: <kbd>j</kbd> next, <kbd>k</kbd> previous, <kbd>d</kbd> decision, <kbd>Esc</kbd> queue
    </p>
  );
}
