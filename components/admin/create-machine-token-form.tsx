"use client";

import { type FormEvent, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { FormError, fieldError, TextField, useServerAction } from "@/components/ui/form";
import { SecretReveal } from "@/components/ui/secret-reveal";
import { createMachineTokenAction } from "@/lib/actions/admin-actions";

const TEXT = {
  api_key: {
    heading: "Create an API key",
    label: "Producer name",
    hint: "The producer's name owns its operations; a second key with the same name is the same producer (for rotation).",
    button: "Create API key",
    usage: "Producers send it as Authorization: Bearer <key>.",
  },
  worker: {
    heading: "Create a worker token",
    label: "Worker name",
    hint: "Shown in the audit trail for the work this worker claims.",
    button: "Create worker token",
    usage: "The worker sends it as Authorization: Bearer <token>.",
  },
} as const;

export function CreateMachineTokenForm({ kind }: { kind: "api_key" | "worker" }) {
  const text = TEXT[kind];
  const formRef = useRef<HTMLFormElement>(null);
  const { run, pending, result } = useServerAction(createMachineTokenAction, formRef);
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget).get("name") ?? "");
    setCreated(null);
    run({ kind, name }, (data) => {
      setCreated({ name: data.name, secret: data.secret });
      formRef.current?.reset();
    });
  }

  return (
    <section aria-labelledby={`create-${kind}-heading`} className="rounded border border-slate-300 bg-white p-4">
      <h2 id={`create-${kind}-heading`} className="text-lg font-semibold">
        {text.heading}
      </h2>
      <form ref={formRef} onSubmit={onSubmit} noValidate className="mt-3 flex flex-wrap items-start gap-3">
        <TextField
          id={`new-${kind}-name`}
          path="name"
          name="name"
          label={text.label}
          required
          autoComplete="off"
          hint={text.hint}
          error={fieldError(result, "name")}
          className="min-w-64 flex-1"
        />
        <Button type="submit" disabled={pending} className="mt-6">
          {pending ? "Creating…" : text.button}
        </Button>
        <div className="w-full">
          <FormError result={result} />
        </div>
      </form>
      {created ? (
        <SecretReveal
          title={`${kind === "api_key" ? "API key for" : "Worker token for"} ${created.name}`}
          secret={created.secret}
          note={text.usage}
          onDismiss={() => setCreated(null)}
        />
      ) : null}
    </section>
  );
}
