"use client";

import { useEffect, useRef } from "react";

/** The queue's keys; the table handles j, k, Enter and x (queue-table.tsx), this file "/" and "?". */
const SHORTCUTS = [
  { keys: ["/"], what: "Search IDs" },
  { keys: ["j"], what: "Next case" },
  { keys: ["k"], what: "Previous case" },
  { keys: ["Enter"], what: "Open the highlighted case" },
  { keys: ["x"], what: "Pick the highlighted case (for a bulk action)" },
  { keys: ["?"], what: "Show these shortcuts" },
  { keys: ["Esc"], what: "Close this list" },
];

/** The id of the search field "/" focuses (queue-filters.tsx). */
export const QUEUE_SEARCH_ID = "queue-search";

/** "/" jumps to the search, "?" lists every key; ignored while typing in a field. */
export function QueueShortcuts() {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    function onKey(event: KeyboardEvent) {
      const target = event.target as HTMLElement | null;
      if (target && (["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName) || target.isContentEditable)) return;
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key === "/") {
        const search = document.getElementById(QUEUE_SEARCH_ID);
        if (!search) return;
        search.focus();
      } else if (event.key === "?") {
        if (!dialog.current?.open) dialog.current?.showModal();
      } else return;
      event.preventDefault();
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  return (
    <>
      <button
        type="button"
        className="hidden rounded px-1 text-sm text-slate-800 underline md:inline"
        onClick={() => dialog.current?.showModal()}
      >
        Keyboard shortcuts <kbd>?</kbd>
      </button>
      <dialog
        ref={dialog}
        aria-labelledby="queue-shortcuts-heading"
        className="rounded border border-slate-300 bg-white p-4 text-slate-900 backdrop:bg-slate-900/40"
      >
        <h2 id="queue-shortcuts-heading" className="text-lg font-semibold">
          Keyboard shortcuts
        </h2>
        <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
          {SHORTCUTS.map((shortcut) => (
            <div key={shortcut.what} className="contents">
              <dt>
                {shortcut.keys.map((key) => (
                  <kbd key={key} className="rounded border border-slate-400 px-1.5 font-mono">
                    {key}
                  </kbd>
                ))}
              </dt>
              <dd>{shortcut.what}</dd>
            </div>
          ))}
        </dl>
        <form method="dialog" className="mt-3 text-right">
          <button type="submit" className="rounded bg-brand px-3 py-1 text-sm font-medium text-white">
            Close
          </button>
        </form>
      </dialog>
    </>
  );
}
