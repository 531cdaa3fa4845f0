"use client";

import {
  type InputHTMLAttributes,
  type ReactNode,
  type RefObject,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
  useCallback,
  useState,
  useTransition,
} from "react";
import type { ActionResult } from "@/lib/actions/safe-action";

import { Button } from "./button";
import { FormError } from "./form-error";

export { ErrorBox, FormError } from "./form-error";

export type ServerAction<T> = (raw: unknown) => Promise<ActionResult<T>>;

/**
 * Runs a server action in a transition and keeps its last result. On a refusal, focus moves to the
 * first field the server named (or to the error summary), so keyboard and screen-reader users land
 * on what needs fixing.
 */
export function useServerAction<T>(action: ServerAction<T>, formRef?: RefObject<HTMLElement | null>) {
  const [result, setResult] = useState<ActionResult<T> | null>(null);
  const [pending, startTransition] = useTransition();

  const run = useCallback(
    (input: unknown, onSuccess?: (data: T) => void) => {
      startTransition(async () => {
        const next = await action(input);
        setResult(next);
        if (next.ok) {
          onSuccess?.(next.data);
          return;
        }
        focusProblem(formRef?.current, next.error.issues?.[0]?.path);
      });
    },
    [action, formRef],
  );

  return { run, pending, result, reset: () => setResult(null) };
}

/**
 * Focus on what needs fixing: the field whose issue path is given (its data-field), else the error
 * summary, after the render that shows the messages.
 */
export function focusProblem(container: HTMLElement | null | undefined, path?: string) {
  if (!container) return;
  requestAnimationFrame(() => {
    const field = path ? container.querySelector<HTMLElement>(`[data-field="${CSS.escape(path)}"]`) : null;
    (field ?? container.querySelector<HTMLElement>("[data-error-summary]"))?.focus();
  });
}

export function fieldError(result: ActionResult<unknown> | null, path: string): string | undefined {
  if (!result || result.ok) return undefined;
  return result.error.issues?.find((issue) => issue.path === path)?.message;
}

function describedByOf(id: string, hint: ReactNode, error: string | undefined): string {
  return [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(" ");
}

/** The hint and the server's complaint under a field, referenced by the field's aria-describedby. */
function FieldMessages({ id, hint, error }: { id: string; hint?: ReactNode; error?: string }) {
  return (
    <>
      {hint ? (
        <p id={`${id}-hint`} className="mt-1 text-xs text-slate-600">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="mt-1 text-xs font-medium text-red-800">
          {error}
        </p>
      ) : null}
    </>
  );
}

/** What every field shares: its id, the issue path the server reports for it, a label, a hint, an error. */
type Wiring = { id: string; path: string; label: string; hint?: ReactNode; error?: string };

/**
 * The label, the hint and the server's complaint around one control, and the attributes that tie
 * them to it (`data-field` is where focus goes when the server names this field).
 */
function Field({
  id,
  path,
  label,
  hint,
  error,
  required,
  className = "",
  control,
}: Wiring & {
  required?: boolean;
  className?: string;
  control: (wired: Record<string, unknown> & { className: string }) => ReactNode;
}) {
  const describedBy = describedByOf(id, hint, error);
  return (
    <div className={className}>
      <label htmlFor={id} className="block text-sm font-medium text-slate-900">
        {label}
        {required ? <span aria-hidden="true"> *</span> : null}
      </label>
      {control({
        id,
        "data-field": path,
        "aria-invalid": error ? true : undefined,
        "aria-describedby": describedBy || undefined,
        className: `mt-1 w-full rounded border px-3 py-2 text-sm ${error ? "border-red-700" : "border-slate-400"}`,
      })}
      <FieldMessages id={id} hint={hint} error={error} />
    </div>
  );
}

export function TextField({
  id,
  path,
  label,
  hint,
  error,
  className,
  ...input
}: Wiring & Omit<InputHTMLAttributes<HTMLInputElement>, "id">) {
  return (
    <Field
      {...{ id, path, label, hint, error, className }}
      required={input.required}
      control={(wired) => <input {...wired} className={`${wired.className} read-only:bg-slate-100`} {...input} />}
    />
  );
}

/** A multi-line field (notes, evidence) with the same label, hint and error wiring as TextField. */
export function TextAreaField({
  id,
  path,
  label,
  hint,
  error,
  className,
  ...textarea
}: Wiring & Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, "id">) {
  return (
    <Field
      {...{ id, path, label, hint, error, className }}
      required={textarea.required}
      control={(wired) => <textarea {...wired} className={`${wired.className} read-only:bg-slate-100`} {...textarea} />}
    />
  );
}

export function SelectField({
  id,
  path,
  label,
  hint,
  error,
  children,
  className,
  ...select
}: Wiring & Omit<SelectHTMLAttributes<HTMLSelectElement>, "id">) {
  return (
    <Field
      {...{ id, path, label, hint, error, className }}
      control={(wired) => (
        <select {...wired} className={`${wired.className} bg-white`} {...select}>
          {children}
        </select>
      )}
    />
  );
}

/** A one-line form's end: its save button, the "saved" line screen readers hear, and its error. */
export function InlineSaveControls({
  label,
  pending,
  saved,
  result,
}: {
  label: string;
  pending: boolean;
  saved: string | null | undefined;
  result: ActionResult<unknown> | null;
}) {
  return (
    <>
      <Button type="submit" disabled={pending}>
        {pending ? "Saving…" : label}
      </Button>
      <p role="status" className="text-sm text-slate-700">
        {saved ?? ""}
      </p>
      <FormError result={result} />
    </>
  );
}
