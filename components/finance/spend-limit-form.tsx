"use client";

import { type FormEvent, useId, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { FormError, fieldError, SelectField, TextField, useServerAction } from "@/components/ui/form";
import { setSpendLimitAction } from "@/lib/actions/finance-actions";
import { formatMicros } from "@/lib/domain/money";

/** Words for a limit's scope: what it applies to, for whom. */
export function limitScope(limit: { appliesTo: string; producer: string | null; model: string | null }): string {
  if (limit.appliesTo !== "sends") return limit.producer ?? "every producer";
  return `sends of ${limit.producer}${limit.model ? ` (model ${limit.model})` : ""}`;
}

/** Sets (or, with both amounts blank, clears) the limit for one currency and scope: replacements, or a producer's sends. */
export function SpendLimitForm() {
  const id = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const { run, pending, result } = useServerAction(setSpendLimitAction, formRef);
  const [saved, setSaved] = useState<string | null>(null);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const value = (name: string) => String(form.get(name) ?? "");
    setSaved(null);
    run(
      {
        appliesTo: value("appliesTo"),
        currency: value("currency"),
        producer: value("producer"),
        model: value("model"),
        perHour: value("perHour"),
        perDay: value("perDay"),
      },
      (data) => {
        const scope = limitScope(data);
        if (!data.limit) {
          setSaved(`Cleared the ${data.currency} limit for ${scope}.`);
          return;
        }
        const figure = (micros: number | null) => (micros === null ? "no limit" : formatMicros(micros, data.currency));
        setSaved(
          `Saved the ${data.currency} limit for ${scope}: ${figure(data.limit.perHourMicros)} per hour, ${figure(data.limit.perDayMicros)} per day.`,
        );
      },
    );
  }

  return (
    <form
      ref={formRef}
      onSubmit={onSubmit}
      noValidate
      aria-label="Set a spend limit"
      className="mt-3 grid gap-3 rounded border border-slate-300 bg-white p-3 md:grid-cols-4"
    >
      <SelectField
        id={`${id}-applies-to`}
        path="appliesTo"
        name="appliesTo"
        label="Applies to"
        defaultValue="replacements"
        hint="Sends: the permits a producer asks for before each paid create, per calendar hour and UTC day."
        error={fieldError(result, "appliesTo")}
      >
        <option value="replacements">Replacements finance authorises</option>
        <option value="sends">A producer's sends</option>
      </SelectField>
      <TextField
        id={`${id}-currency`}
        path="currency"
        name="currency"
        label="Currency"
        required
        maxLength={3}
        defaultValue="USD"
        autoComplete="off"
        error={fieldError(result, "currency")}
      />
      <TextField
        id={`${id}-producer`}
        path="producer"
        name="producer"
        label="Producer"
        autoComplete="off"
        hint="Blank: every producer together (replacements only)."
        error={fieldError(result, "producer")}
      />
      <TextField
        id={`${id}-model`}
        path="model"
        name="model"
        label="Model"
        autoComplete="off"
        hint="Sends only. Blank: all the producer's models."
        error={fieldError(result, "model")}
      />
      <TextField
        id={`${id}-hour`}
        path="perHour"
        name="perHour"
        label="Most per hour"
        inputMode="decimal"
        autoComplete="off"
        placeholder="250.00"
        hint="Blank: no hourly limit."
        error={fieldError(result, "perHour")}
      />
      <TextField
        id={`${id}-day`}
        path="perDay"
        name="perDay"
        label="Most per day"
        inputMode="decimal"
        autoComplete="off"
        placeholder="2000.00"
        hint="Blank: no daily limit."
        error={fieldError(result, "perDay")}
      />
      <Button type="submit" disabled={pending} className="mt-6 self-start">
        {pending ? "Saving…" : "Save limit"}
      </Button>
      <p role="status" className="text-sm text-slate-700 md:col-span-4">
        {saved ?? ""}
      </p>
      <div className="md:col-span-4">
        <FormError result={result} />
      </div>
    </form>
  );
}
