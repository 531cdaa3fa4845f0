"use client";

import { type FormEvent, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { FormError, fieldError, useServerAction } from "@/components/ui/form";
import { SecretReveal } from "@/components/ui/secret-reveal";
import {
  resetUserPasswordAction,
  setUserActiveAction,
  setUserProducersAction,
  setUserRolesAction,
  signOutUserAction,
} from "@/lib/actions/admin-actions";
import { ROLES, type Role } from "@/lib/domain/roles";

type UserSummary = { id: string; email: string; name: string; roles: Role[]; active: boolean };

/** Roles of one user, edited in place. Your own admin box is locked, so nobody locks themself out. */
export function UserRolesEditor({ user, isSelf }: { user: UserSummary; isSelf: boolean }) {
  const formRef = useRef<HTMLFormElement>(null);
  const { run, pending, result } = useServerAction(setUserRolesAction, formRef);
  const [saved, setSaved] = useState(false);
  const errorId = `roles-${user.id}-error`;
  const rolesError = fieldError(result, "roles");

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const roles = new FormData(event.currentTarget).getAll("roles").map(String);
    if (isSelf && !roles.includes("admin")) roles.push("admin");
    setSaved(false);
    run({ userId: user.id, roles }, () => setSaved(true));
  }

  return (
    <form ref={formRef} onSubmit={onSubmit} noValidate>
      <fieldset aria-describedby={rolesError ? errorId : undefined}>
        {/* Named after the person, not the email, so the email stays the only cell that names it. */}
        <legend className="sr-only">Roles for {user.name}</legend>
        <div className="flex flex-wrap gap-x-3 gap-y-1">
          {ROLES.map((role, index) => {
            const locked = isSelf && role === "admin";
            return (
              <label key={role} className="flex items-center gap-1 text-sm">
                <input
                  type="checkbox"
                  name="roles"
                  value={role}
                  defaultChecked={user.roles.includes(role)}
                  disabled={locked}
                  aria-describedby={locked ? `self-admin-${user.id}` : undefined}
                  {...(index === 0 ? { "data-field": "roles" } : {})}
                />
                {role}
              </label>
            );
          })}
        </div>
        {isSelf ? (
          <p id={`self-admin-${user.id}`} className="mt-1 text-xs text-slate-600">
            You cannot remove your own admin role.
          </p>
        ) : null}
      </fieldset>
      <SaveRow label="Save roles" pending={pending} saved={saved && !!result?.ok} />
      {rolesError ? (
        <p id={errorId} className="mt-1 text-xs font-medium text-red-800">
          {rolesError}
        </p>
      ) : null}
      <div data-error-summary tabIndex={-1}>
        <FormError result={result && !result.ok && !rolesError ? result : null} listIssues />
      </div>
    </form>
  );
}

export function UserAccountControls({ user, isSelf }: { user: UserSummary; isSelf: boolean }) {
  const active = useServerAction(setUserActiveAction);
  const reset = useServerAction(resetUserPasswordAction);
  const signOut = useServerAction(signOutUserAction);
  const [password, setPassword] = useState<{ secret: string; tokensRevoked: number } | null>(null);
  const [keepTokens, setKeepTokens] = useState(false);
  const [signedOut, setSignedOut] = useState(false);

  return (
    <div className="flex flex-col items-start gap-2">
      <div className="flex flex-wrap gap-2">
        {isSelf ? (
          <span className="text-xs text-slate-600">You cannot deactivate yourself.</span>
        ) : user.active ? (
          <ConfirmButton
            label="Deactivate"
            confirmLabel={`Deactivate ${user.email}`}
            question="Their sessions and personal tokens stop working at once."
            pending={active.pending}
            onConfirm={() => active.run({ userId: user.id, active: false })}
          />
        ) : (
          <Button
            variant="secondary"
            className="px-3 py-1"
            disabled={active.pending}
            onClick={() => active.run({ userId: user.id, active: true })}
          >
            {active.pending ? "Working…" : "Reactivate"}
          </Button>
        )}
        <ConfirmButton
          label="Reset password"
          confirmLabel="Issue a new password"
          question={
            keepTokens
              ? "The current password and their sessions stop working; their personal tokens are kept."
              : "The current password, their sessions and their personal tokens stop working."
          }
          variant="secondary"
          pending={reset.pending}
          onConfirm={() =>
            reset.run({ userId: user.id, keepPersonalTokens: keepTokens }, (data) =>
              setPassword({ secret: data.password, tokensRevoked: data.personalTokensRevoked }),
            )
          }
        />
        {isSelf ? null : (
          <ConfirmButton
            label="Sign this user out"
            confirmLabel={`Sign out ${user.email}`}
            question="Every session of theirs ends; they can sign in again."
            variant="secondary"
            pending={signOut.pending}
            onConfirm={() => {
              setSignedOut(false);
              signOut.run({ userId: user.id }, () => setSignedOut(true));
            }}
          />
        )}
      </div>
      <label className="flex items-center gap-1 text-xs text-slate-800">
        <input type="checkbox" checked={keepTokens} onChange={(event) => setKeepTokens(event.target.checked)} />
        On password reset, keep this user&apos;s personal tokens
      </label>
      <span role="status" className="text-xs text-slate-700">
        {signedOut && signOut.result?.ok ? "Signed out everywhere." : ""}
      </span>
      <FormError result={active.result} listIssues />
      <FormError result={reset.result} listIssues />
      <FormError result={signOut.result} listIssues />
      {password ? (
        <SecretReveal
          title={`New password for ${user.email}${password.tokensRevoked ? ` (${password.tokensRevoked} personal tokens revoked)` : ""}`}
          secret={password.secret}
          onDismiss={() => setPassword(null)}
        />
      ) : null}
    </div>
  );
}

/**
 * The producers a person works for (decision 035), ticked from the producers the deployment knows
 * (decision 057: a typed name could be a typo that hides everything); none ticked is every producer.
 * A name saved before that no longer matches a known producer stays listed, so it can be unticked.
 * An admin acts for every producer, so theirs is not editable.
 */
export function UserProducersEditor({
  user,
  known,
}: {
  user: UserSummary & { producerScope: string[] };
  known: string[];
}) {
  const formRef = useRef<HTMLFormElement>(null);
  const { run, pending, result } = useServerAction(setUserProducersAction, formRef);
  const [saved, setSaved] = useState(false);
  if (user.roles.includes("admin")) return <span className="text-sm text-slate-700">Every producer (admin)</span>;
  const knownNames = new Set(known);
  const choices = [...new Set([...known, ...user.producerScope])].sort();
  const errorId = `producers-${user.id}-error`;
  const producersError = fieldError(result, "producers");

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const producers = new FormData(event.currentTarget).getAll("producers").map(String);
    setSaved(false);
    run({ userId: user.id, producers }, () => setSaved(true));
  }

  return (
    <form ref={formRef} onSubmit={onSubmit} noValidate className="min-w-48" aria-label={`Producers of ${user.name}`}>
      <fieldset aria-describedby={producersError ? errorId : undefined}>
        <legend className="text-sm">Producers for {user.name}</legend>
        <p className="text-xs text-slate-600">None ticked: every producer.</p>
        {choices.length === 0 ? (
          <p className="text-xs text-slate-600">No producer has an API key or an operation yet.</p>
        ) : (
          // A long list scrolls; its checkboxes are what the keyboard reaches it by.
          <div className="mt-1 max-h-40 overflow-y-auto">
            {choices.map((name, index) => (
              <label key={name} className="flex items-center gap-1 text-sm">
                <input
                  type="checkbox"
                  name="producers"
                  value={name}
                  defaultChecked={user.producerScope.includes(name)}
                  {...(index === 0 ? { "data-field": "producers" } : {})}
                />
                {name}
                {knownNames.has(name) ? null : <span className="text-xs text-red-800">(unknown)</span>}
              </label>
            ))}
          </div>
        )}
      </fieldset>
      <SaveRow label="Save producers" pending={pending} saved={saved && !!result?.ok} />
      {producersError ? (
        <p id={errorId} className="mt-1 text-xs font-medium text-red-800">
          {producersError}
        </p>
      ) : null}
      <div data-error-summary tabIndex={-1}>
        <FormError result={result && !result.ok && !producersError ? result : null} listIssues />
      </div>
    </form>
  );
}

/** A small in-place editor's save button and its "Saved." status, announced to screen readers. */
function SaveRow({ label, pending, saved }: { label: string; pending: boolean; saved: boolean }) {
  return (
    <div className="mt-1 flex items-center gap-2">
      <Button type="submit" variant="secondary" className="px-3 py-1" disabled={pending}>
        {pending ? "Saving…" : label}
      </Button>
      <span role="status" className="text-xs text-slate-700">
        {saved ? "Saved." : ""}
      </span>
    </div>
  );
}
