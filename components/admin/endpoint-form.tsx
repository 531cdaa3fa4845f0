"use client";

import { type FormEvent, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { FormError, fieldError, SelectField, TextField, useServerAction } from "@/components/ui/form";
import { SecretReveal } from "@/components/ui/secret-reveal";
import { saveEndpointAction } from "@/lib/actions/admin-actions";

/** Sets a producer's notification URL; the first time, it also issues the signing secret (shown once). */
export function EndpointForm({ producers, allowedHosts }: { producers: string[]; allowedHosts: string[] }) {
  const formRef = useRef<HTMLFormElement>(null);
  const { run, pending, result } = useServerAction(saveEndpointAction, formRef);
  const [created, setCreated] = useState<{ producer: string; secret: string } | null>(null);
  const [saved, setSaved] = useState<string | null>(null);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setCreated(null);
    setSaved(null);
    run({ producer: String(form.get("producer") ?? ""), url: String(form.get("url") ?? "") }, (data) => {
      if (data.signingSecret) setCreated({ producer: data.endpoint.producer, secret: data.signingSecret });
      else setSaved(`Saved the URL for ${data.endpoint.producer}; its signing secret is unchanged.`);
      formRef.current?.reset();
    });
  }

  if (producers.length === 0) {
    return (
      <p className="rounded border border-dashed border-slate-400 bg-white p-4 text-sm text-slate-700">
        Create an API key first: an endpoint belongs to a producer, and producers are named by their keys.
      </p>
    );
  }

  return (
    <section aria-labelledby="endpoint-form-heading" className="rounded border border-slate-300 bg-white p-4">
      <h3 id="endpoint-form-heading" className="font-semibold">
        Set a producer&apos;s endpoint
      </h3>
      <form ref={formRef} onSubmit={onSubmit} noValidate className="mt-3 grid gap-3 md:grid-cols-[14rem_1fr_auto]">
        <SelectField
          id="endpoint-producer"
          path="producer"
          name="producer"
          label="Producer"
          error={fieldError(result, "producer")}
        >
          {producers.map((producer) => (
            <option key={producer} value={producer}>
              {producer}
            </option>
          ))}
        </SelectField>
        <TextField
          id="endpoint-url"
          path="url"
          name="url"
          type="url"
          label="URL"
          required
          placeholder="https://example.com/hooks/video-recovery"
          hint={
            allowedHosts.length
              ? `https to a public address; plain http and private addresses only for ${allowedHosts.join(", ")}.`
              : "https to a public address only."
          }
          error={fieldError(result, "url")}
        />
        <Button type="submit" disabled={pending} className="self-start md:mt-6">
          {pending ? "Saving…" : "Save endpoint"}
        </Button>
        <div className="md:col-span-3">
          <FormError result={result} />
          <p role="status" className="text-sm text-slate-700">
            {saved ?? ""}
          </p>
        </div>
      </form>
      {created ? (
        <SecretReveal
          title={`Signing secret for ${created.producer}`}
          secret={created.secret}
          note="The producer verifies each notification's webhook-signature header with it (Standard Webhooks)."
          onDismiss={() => setCreated(null)}
        />
      ) : null}
    </section>
  );
}
