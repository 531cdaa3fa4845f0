"use client";

import { useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { FormError, useServerAction } from "@/components/ui/form";
import { saveConsoleSettingsAction } from "@/lib/actions/admin-actions";

/** Whether an assignee is a label or the case's owner (only they, or an admin, decide it). */
export function OwnershipForm({ ownership }: { ownership: boolean }) {
  const formRef = useRef<HTMLFormElement>(null);
  const { run, pending, result } = useServerAction(saveConsoleSettingsAction, formRef);
  const [on, setOn] = useState(ownership);
  const [saved, setSaved] = useState<string | null>(null);
  return (
    <form
      ref={formRef}
      aria-labelledby="ownership-heading"
      className="rounded border border-slate-300 bg-white p-4"
      onSubmit={(event) => {
        event.preventDefault();
        setSaved(null);
        run({ assignmentIsOwnership: on }, (data) =>
          setSaved(data.assignmentIsOwnership ? "Saved: assignment means ownership." : "Saved: assignment is a label."),
        );
      }}
    >
      <h2 id="ownership-heading" className="font-semibold">
        Assignment
      </h2>
      <label className="mt-2 flex items-start gap-2 text-sm">
        <input type="checkbox" className="mt-1" checked={on} onChange={(event) => setOn(event.target.checked)} />
        <span>
          Assignment means ownership: only the assignee (or an admin) may decide an assigned case. Notes and
          reassignment stay open to everyone who may make them. Off, an assignee is a label.
        </span>
      </label>
      <div className="mt-2 flex items-center gap-3">
        <Button type="submit" disabled={pending}>
          {pending ? "Saving…" : "Save"}
        </Button>
        <p role="status" className="text-sm text-slate-700">
          {saved ?? ""}
        </p>
      </div>
      <FormError result={result} />
    </form>
  );
}
