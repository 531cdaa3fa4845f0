"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { type FormEvent, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { FormError, fieldError, SelectField, TextField, useServerAction } from "@/components/ui/form";
import { SecretReveal } from "@/components/ui/secret-reveal";
import { saveAlertDestinationAction } from "@/lib/actions/alert-actions";

export type DestinationEditing = { id: string; name: string; kind: "webhook" | "slack"; disabled: boolean };

/**
 * Adds an alert destination, or (with `editing`) renames, re-points or disables one. The URL is
 * entered again when editing: a Slack URL is a credential and is never sent back to the browser.
 */
export function AlertDestinationForm({
  editing,
  allowedHosts,
}: {
  editing: DestinationEditing | null;
  allowedHosts: string[];
}) {
  const router = useRouter();
  const formRef = useRef<HTMLFormElement>(null);
  const { run, pending, result } = useServerAction(saveAlertDestinationAction, formRef);
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);
  const [saved, setSaved] = useState<string | null>(null);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const value = (name: string) => String(form.get(name) ?? "");
    setCreated(null);
    setSaved(null);
    run(
      {
        ...(editing ? { id: editing.id } : {}),
        name: value("name"),
        kind: editing?.kind ?? value("kind"),
        url: value("url"),
        disabled: form.get("disabled") === "on",
      },
      (data) => {
        if (data.signingSecret) setCreated({ name: data.destination.name, secret: data.signingSecret });
        setSaved(`Saved the destination ${data.destination.name}.`);
        if (editing) router.replace("/admin/alerts");
        else formRef.current?.reset();
      },
    );
  }

  return (
    <section aria-labelledby="destination-form-heading" className="rounded border border-slate-300 bg-white p-4">
      <h3 id="destination-form-heading" className="font-semibold">
        {editing ? `Edit destination ${editing.name}` : "Add a destination"}
      </h3>
      <form ref={formRef} onSubmit={onSubmit} noValidate className="mt-3 grid gap-3 md:grid-cols-[14rem_10rem_1fr]">
        <TextField
          id="destination-name"
          path="name"
          name="name"
          label="Name"
          required
          defaultValue={editing?.name}
          placeholder="on-call"
          error={fieldError(result, "name")}
        />
        <SelectField
          id="destination-kind"
          path="kind"
          name="kind"
          label="Kind"
          defaultValue={editing?.kind ?? "webhook"}
          disabled={Boolean(editing)}
          error={fieldError(result, "kind")}
        >
          <option value="webhook">Signed webhook</option>
          <option value="slack">Slack message</option>
        </SelectField>
        <TextField
          id="destination-url"
          path="url"
          name="url"
          type="url"
          label="URL"
          required
          placeholder="https://hooks.slack.com/services/…"
          hint={`${editing ? "Enter the URL again (it is never shown once saved). " : ""}${
            allowedHosts.length
              ? `https to a public address; plain http and private addresses only for ${allowedHosts.join(", ")}.`
              : "https to a public address only."
          }`}
          error={fieldError(result, "url")}
        />
        {editing ? (
          <label className="flex items-center gap-2 text-sm md:col-span-3">
            <input type="checkbox" name="disabled" defaultChecked={editing.disabled} /> Disabled (sent nothing)
          </label>
        ) : null}
        <div className="flex flex-wrap items-center gap-3 md:col-span-3">
          <Button type="submit" disabled={pending}>
            {pending ? "Saving…" : editing ? "Save destination" : "Add destination"}
          </Button>
          {editing ? (
            <Link href="/admin/alerts" className="text-sm text-brand underline">
              Cancel editing
            </Link>
          ) : null}
          <p role="status" className="text-sm text-slate-700">
            {saved ?? ""}
          </p>
        </div>
        <div className="md:col-span-3">
          <FormError result={result} />
        </div>
      </form>
      {created ? (
        <SecretReveal
          title={`Signing secret for ${created.name}`}
          secret={created.secret}
          note="The receiver verifies each alert's webhook-signature header with it (Standard Webhooks)."
          onDismiss={() => setCreated(null)}
        />
      ) : null}
    </section>
  );
}
