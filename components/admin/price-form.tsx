"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { type FormEvent, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { FormError, fieldError, SelectField, TextField, useServerAction } from "@/components/ui/form";
import { savePriceAction } from "@/lib/actions/admin-actions";

export type PriceFormValues = {
  provider: string;
  model: string;
  unit: "per_generation" | "per_second";
  /** A plain decimal, e.g. "0.022": converted to integer micro-units on the server. */
  price: string;
  currency: string;
};

/** Adds a price, or (with `editing`) changes one provider/model's unit, amount or currency. */
export function PriceForm({ editing, providers }: { editing: PriceFormValues | null; providers: readonly string[] }) {
  const router = useRouter();
  const formRef = useRef<HTMLFormElement>(null);
  const { run, pending, result } = useServerAction(savePriceAction, formRef);
  const [saved, setSaved] = useState<string | null>(null);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const value = (name: string) => String(form.get(name) ?? "");
    setSaved(null);
    run(
      {
        provider: value("provider"),
        model: value("model"),
        unit: value("unit"),
        price: value("price"),
        currency: value("currency").trim().toUpperCase(),
      },
      (data) => {
        setSaved(`Saved the price of ${data.provider} ${data.model}.`);
        if (editing) router.replace("/admin/prices");
        else formRef.current?.reset();
      },
    );
  }

  return (
    <section aria-labelledby="price-form-heading" className="rounded border border-slate-300 bg-white p-4">
      <h2 id="price-form-heading" className="text-lg font-semibold">
        {editing ? `Edit ${editing.provider} ${editing.model}` : "Add a price"}
      </h2>
      <form ref={formRef} onSubmit={onSubmit} noValidate className="mt-3 grid gap-3 md:grid-cols-5">
        {editing ? (
          <TextField
            id="price-provider"
            path="provider"
            name="provider"
            label="Provider"
            required
            defaultValue={editing.provider}
            readOnly
            error={fieldError(result, "provider")}
          />
        ) : (
          <SelectField
            id="price-provider"
            path="provider"
            name="provider"
            label="Provider"
            defaultValue={providers[0]}
            error={fieldError(result, "provider")}
          >
            {providers.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </SelectField>
        )}
        <TextField
          id="price-model"
          path="model"
          name="model"
          label="Model"
          required
          defaultValue={editing?.model}
          readOnly={Boolean(editing)}
          placeholder="omni-flash-720p"
          error={fieldError(result, "model")}
        />
        <SelectField
          id="price-unit"
          path="unit"
          name="unit"
          label="Charged"
          defaultValue={editing?.unit ?? "per_generation"}
          error={fieldError(result, "unit")}
        >
          <option value="per_generation">per generation</option>
          <option value="per_second">per second of video</option>
        </SelectField>
        <TextField
          id="price-amount"
          path="price"
          name="price"
          label="Price"
          required
          inputMode="decimal"
          defaultValue={editing?.price}
          placeholder="0.10"
          hint="A decimal amount, up to six decimals."
          error={fieldError(result, "price")}
        />
        <TextField
          id="price-currency"
          path="currency"
          name="currency"
          label="Currency"
          required
          maxLength={3}
          defaultValue={editing?.currency ?? "USD"}
          error={fieldError(result, "currency")}
        />
        <div className="flex flex-wrap items-center gap-3 md:col-span-5">
          <Button type="submit" disabled={pending}>
            {pending ? "Saving…" : editing ? "Save changes" : "Add price"}
          </Button>
          {editing ? (
            <Link href="/admin/prices" className="text-sm text-brand underline">
              Cancel editing
            </Link>
          ) : null}
          <p role="status" className="text-sm text-slate-700">
            {saved ?? ""}
          </p>
        </div>
        <div className="md:col-span-5">
          <FormError result={result} />
        </div>
      </form>
    </section>
  );
}
