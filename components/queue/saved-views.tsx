"use client";

import { useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { FormError, fieldError, TextField, useServerAction } from "@/components/ui/form";
import { deleteViewAction, saveViewAction, shareViewAction } from "@/lib/actions/queue-actions";
import type { SavedView } from "@/lib/services/saved-view/saved-views";

/**
 * A person's own named views of the queue, then those teammates shared (read-only, marked with
 * their owner's name): one click opens one; the current view can be saved, and one's own shared.
 */
export function SavedViews({ views, current }: { views: SavedView[]; current: string }) {
  const formRef = useRef<HTMLFormElement>(null);
  const save = useServerAction(saveViewAction, formRef);
  const remove = useServerAction(deleteViewAction);
  const share = useServerAction(shareViewAction);
  const [naming, setNaming] = useState(false);
  const [name, setName] = useState("");
  return (
    <section aria-label="Saved views" className="flex flex-wrap items-center gap-2 text-sm">
      <span className="font-medium">Saved views:</span>
      {views.length === 0 ? <span className="text-slate-700">none yet</span> : null}
      {views.map((view) => (
        <span
          key={view.id}
          className={`inline-flex items-center rounded border ${view.query === current ? "border-brand bg-sky-50" : "border-slate-300 bg-white"}`}
        >
          <a
            href={view.query ? `/queue?${view.query}` : "/queue"}
            aria-current={view.query === current ? "page" : undefined}
            className="px-2 py-0.5 text-brand underline"
          >
            {view.name}
          </a>
          {view.owner === null ? (
            <>
              <button
                type="button"
                aria-pressed={view.shared}
                aria-label={`Share saved view ${view.name} with the team`}
                title={view.shared ? "Shared with the team: click to stop sharing" : "Share with the team (read-only)"}
                disabled={share.pending}
                className={`border-l border-slate-300 px-1.5 text-xs ${view.shared ? "font-semibold text-slate-900" : "text-slate-700"}`}
                onClick={() => share.run({ id: view.id, shared: !view.shared })}
              >
                {view.shared ? "shared" : "share"}
              </button>
              <button
                type="button"
                aria-label={`Delete saved view ${view.name}`}
                disabled={remove.pending}
                className="border-l border-slate-300 px-1.5 text-slate-700 hover:text-red-800"
                onClick={() => remove.run({ id: view.id })}
              >
                ×
              </button>
            </>
          ) : (
            <span className="border-l border-slate-300 px-1.5 text-xs text-slate-700">by {view.owner}</span>
          )}
        </span>
      ))}
      {naming ? (
        <form
          ref={formRef}
          className="flex flex-wrap items-end gap-2"
          onSubmit={(event) => {
            event.preventDefault();
            save.run({ name, query: current }, () => {
              setNaming(false);
              setName("");
            });
          }}
        >
          <TextField
            id="saved-view-name"
            path="name"
            label="Name this view"
            value={name}
            onChange={(event) => setName(event.target.value)}
            maxLength={60}
            required
            error={fieldError(save.result, "name")}
          />
          <Button type="submit" disabled={save.pending}>
            Save
          </Button>
          <Button variant="secondary" onClick={() => setNaming(false)}>
            Cancel
          </Button>
        </form>
      ) : (
        <Button variant="secondary" className="px-2 py-0.5" onClick={() => setNaming(true)}>
          Save this view
        </Button>
      )}
      <FormError result={save.result} />
      <FormError result={remove.result} />
      <FormError result={share.result} />
    </section>
  );
}
