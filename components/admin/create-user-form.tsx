"use client";

import { type FormEvent, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { FormError, fieldError, TextField, useServerAction } from "@/components/ui/form";
import { SecretReveal } from "@/components/ui/secret-reveal";
import { createUserAction } from "@/lib/actions/admin-actions";
import { ROLES } from "@/lib/domain/roles";
import { ROLE_HELP } from "./role-help";

export function CreateUserForm() {
  const formRef = useRef<HTMLFormElement>(null);
  const { run, pending, result } = useServerAction(createUserAction, formRef);
  const [created, setCreated] = useState<{ email: string; password: string } | null>(null);
  const rolesError = fieldError(result, "roles");

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setCreated(null);
    run(
      {
        email: String(form.get("email") ?? ""),
        name: String(form.get("name") ?? ""),
        roles: form.getAll("roles").map(String),
      },
      (data) => {
        setCreated({ email: data.user.email, password: data.password });
        formRef.current?.reset();
      },
    );
  }

  return (
    <section aria-labelledby="create-user-heading" className="rounded border border-slate-300 bg-white p-4">
      <h2 id="create-user-heading" className="text-lg font-semibold">
        Create a user
      </h2>
      <form ref={formRef} onSubmit={onSubmit} noValidate className="mt-3 grid gap-4 md:grid-cols-2">
        <TextField
          id="new-user-email"
          path="email"
          name="email"
          type="email"
          label="Email"
          required
          autoComplete="off"
          error={fieldError(result, "email")}
        />
        <TextField
          id="new-user-name"
          path="name"
          name="name"
          label="Name"
          hint="Optional; defaults to the part of the email before the @."
          error={fieldError(result, "name")}
        />
        <fieldset
          className="md:col-span-2"
          aria-describedby={rolesError ? "new-user-roles-error" : undefined}
          aria-invalid={rolesError ? true : undefined}
        >
          <legend className="text-sm font-medium">
            Roles<span aria-hidden="true"> *</span>
          </legend>
          <div className="mt-1 flex flex-wrap gap-x-6 gap-y-2">
            {ROLES.map((role, index) => (
              <label key={role} className="flex items-start gap-2 text-sm">
                <input
                  type="checkbox"
                  name="roles"
                  value={role}
                  className="mt-1"
                  {...(index === 0 ? { "data-field": "roles" } : {})}
                />
                <span>
                  <span className="font-medium">{role}</span>
                  <span className="block text-xs text-slate-600">{ROLE_HELP[role]}</span>
                </span>
              </label>
            ))}
          </div>
          {rolesError ? (
            <p id="new-user-roles-error" className="mt-1 text-xs font-medium text-red-800">
              {rolesError}
            </p>
          ) : null}
        </fieldset>
        <div className="md:col-span-2">
          <Button type="submit" disabled={pending}>
            {pending ? "Creating…" : "Create user"}
          </Button>
          <FormError result={result} />
        </div>
      </form>
      {created ? (
        <SecretReveal
          title={`Password for ${created.email}`}
          secret={created.password}
          note="Give it to the person over a safe channel; an admin can issue a new one later."
          onDismiss={() => setCreated(null)}
        />
      ) : null}
    </section>
  );
}
