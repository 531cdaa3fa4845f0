"use client";

import { type FormEvent, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { FormError, fieldError, SelectField, TextField, useServerAction } from "@/components/ui/form";
import { SecretReveal } from "@/components/ui/secret-reveal";
import { createPersonalTokenAction } from "@/lib/actions/profile-actions";
import { PERSONAL_TOKEN_EXPIRY_DAYS } from "@/lib/domain/personal-tokens";

export function CreatePersonalTokenForm() {
  const formRef = useRef<HTMLFormElement>(null);
  const { run, pending, result } = useServerAction(createPersonalTokenAction, formRef);
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const expiry = String(form.get("expiresInDays") ?? "");
    setCreated(null);
    run({ name: String(form.get("name") ?? ""), expiresInDays: expiry ? Number(expiry) : null }, (data) => {
      setCreated({ name: data.name, secret: data.secret });
      formRef.current?.reset();
    });
  }

  return (
    <section aria-labelledby="create-token-heading" className="rounded border border-slate-300 bg-white p-4">
      <h3 id="create-token-heading" className="font-semibold">
        Create a personal access token
      </h3>
      <form ref={formRef} onSubmit={onSubmit} noValidate className="mt-3 grid gap-3 md:grid-cols-[1fr_12rem_auto]">
        <TextField
          id="token-name"
          path="name"
          name="name"
          label="Name"
          required
          autoComplete="off"
          placeholder="reconcile script"
          hint="What it is for, so you recognise it later."
          error={fieldError(result, "name")}
        />
        <SelectField
          id="token-expiry"
          path="expiresInDays"
          name="expiresInDays"
          label="Expires"
          defaultValue="30"
          error={fieldError(result, "expiresInDays")}
        >
          {PERSONAL_TOKEN_EXPIRY_DAYS.map((days) => (
            <option key={days} value={days}>
              in {days} days
            </option>
          ))}
          <option value="">never</option>
        </SelectField>
        <Button type="submit" disabled={pending} className="self-start md:mt-6">
          {pending ? "Creating…" : "Create token"}
        </Button>
        <div className="md:col-span-3">
          <FormError result={result} />
        </div>
      </form>
      {created ? (
        <SecretReveal
          title={`Personal access token "${created.name}"`}
          secret={created.secret}
          note="Send it as Authorization: Bearer <token>; it acts as you, with your roles."
          onDismiss={() => setCreated(null)}
        />
      ) : null}
    </section>
  );
}
