"use client";

import { type FormEvent, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { FormError, useServerAction } from "@/components/ui/form";
import { useBrowserZone } from "@/components/ui/time-display";
import { setTimeDisplayAction } from "@/lib/actions/profile-actions";
import type { TimeDisplay } from "@/lib/validation/time-display";

const OPTIONS: { value: TimeDisplay; label: string }[] = [
  { value: "local", label: "My local time" },
  { value: "utc", label: "UTC" },
];

/** Local time or UTC for every time the console shows; hovering a time always gives UTC. */
export function TimeDisplayForm({ current }: { current: TimeDisplay }) {
  const formRef = useRef<HTMLFormElement>(null);
  const zone = useBrowserZone();
  const { run, pending, result } = useServerAction(setTimeDisplayAction, formRef);
  const [saved, setSaved] = useState<TimeDisplay | null>(null);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const times = new FormData(event.currentTarget).get("times");
    setSaved(null);
    run({ times }, (data) => setSaved(data.times));
  }

  return (
    <form ref={formRef} onSubmit={onSubmit} aria-label="Times" className="space-y-3">
      <fieldset>
        <legend className="text-sm font-medium">Show times in</legend>
        <div className="mt-2 flex flex-wrap gap-x-6 gap-y-2 text-sm">
          {OPTIONS.map((option) => (
            <label key={option.value} className="flex items-center gap-2">
              <input type="radio" name="times" value={option.value} defaultChecked={current === option.value} />
              {option.label}
              {option.value === "local" && zone ? <span className="text-slate-700">({zone})</span> : null}
            </label>
          ))}
        </div>
      </fieldset>
      <p className="text-sm text-slate-700">Whichever you choose, hovering over a time shows it in UTC.</p>
      <div className="flex items-center gap-3">
        <Button type="submit" disabled={pending}>
          Save
        </Button>
        {saved ? (
          <p role="status" className="text-sm">
            Saved: times now show in {saved === "utc" ? "UTC" : "your local time"}.
          </p>
        ) : null}
      </div>
      <FormError result={result} listIssues />
    </form>
  );
}
