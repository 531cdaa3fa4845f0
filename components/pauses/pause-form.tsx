"use client";

import { type FormEvent, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { FormError, fieldError, SelectField, TextAreaField, TextField, useServerAction } from "@/components/ui/form";
import { pauseScopeAction } from "@/lib/actions/pause-actions";

/**
 * Pauses a provider, producer or model (decision 064). `everyProducer` is false for a person
 * limited to some producers: they may pause only those, so the other kinds are not offered.
 */
export function PauseForm({ everyProducer, suggestions }: { everyProducer: boolean; suggestions: string[] }) {
  const formRef = useRef<HTMLFormElement>(null);
  const { run, pending, result } = useServerAction(pauseScopeAction, formRef);
  const [done, setDone] = useState("");

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? "");
    setDone("");
    const element = event.currentTarget;
    run({ kind: text("kind"), value: text("value"), reason: text("reason") }, (data) => {
      setDone(
        data.created ? `Paused the ${data.kind} ${data.value}.` : `The ${data.kind} ${data.value} was already paused.`,
      );
      element.reset();
    });
  }

  return (
    <form ref={formRef} onSubmit={onSubmit} noValidate className="grid gap-3 sm:grid-cols-2">
      <SelectField id="pause-kind" path="kind" name="kind" label="What to pause" defaultValue="provider">
        {everyProducer ? <option value="provider">A provider</option> : null}
        <option value="producer">A producer</option>
        {everyProducer ? <option value="model">A model</option> : null}
      </SelectField>
      <TextField
        id="pause-value"
        path="value"
        name="value"
        label="Its name"
        list="pause-suggestions"
        autoComplete="off"
        hint="As the console shows it: replicate, a producer's name, a model's name."
        error={fieldError(result, "value")}
      />
      <datalist id="pause-suggestions">
        {suggestions.map((name) => (
          <option key={name} value={name} />
        ))}
      </datalist>
      <TextAreaField
        id="pause-reason"
        path="reason"
        name="reason"
        label="Why"
        rows={2}
        className="sm:col-span-2"
        hint="Recorded with your name in the audit trail and shown on every page the pause affects."
        error={fieldError(result, "reason")}
      />
      <div className="flex flex-wrap items-center gap-3 sm:col-span-2">
        <Button type="submit" disabled={pending}>
          {pending ? "Pausing…" : "Pause"}
        </Button>
        <p role="status" className="text-sm text-slate-700">
          {done}
        </p>
      </div>
      <div className="sm:col-span-2">
        <FormError result={result} />
      </div>
    </form>
  );
}
