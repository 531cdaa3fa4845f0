"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { type FormEvent, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { FormError, fieldError, SelectField, TextField, useServerAction } from "@/components/ui/form";
import { saveAlertRuleAction } from "@/lib/actions/alert-actions";
import { ALERT_KINDS, ALERT_RULE_KINDS, type AlertRuleKind } from "@/lib/domain/alert-rules";

export type RuleFormValues = {
  id: string;
  name: string;
  kind: AlertRuleKind;
  thresholdCount: number;
  /** A plain decimal, e.g. "250.00", or "" for none. */
  thresholdAmount: string;
  thresholdCurrency: string;
  windowMinutes: number;
  renotifyMinutes: number;
  destinationId: string;
  enabled: boolean;
};

/** Adds an alert rule, or (with `editing`) changes one. */
export function AlertRuleForm({
  editing,
  destinations,
}: {
  editing: RuleFormValues | null;
  destinations: { id: string; name: string }[];
}) {
  const router = useRouter();
  const formRef = useRef<HTMLFormElement>(null);
  const { run, pending, result } = useServerAction(saveAlertRuleAction, formRef);
  const [saved, setSaved] = useState<string | null>(null);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const value = (name: string) => String(form.get(name) ?? "");
    setSaved(null);
    run(
      {
        ...(editing ? { id: editing.id } : {}),
        name: value("name"),
        kind: value("kind"),
        thresholdCount: value("thresholdCount"),
        thresholdAmount: value("thresholdAmount"),
        thresholdCurrency: value("thresholdCurrency").trim().toUpperCase(),
        windowMinutes: value("windowMinutes"),
        renotifyMinutes: value("renotifyMinutes"),
        destinationId: value("destinationId"),
        enabled: form.get("enabled") === "on",
      },
      (data) => {
        setSaved(`Saved the rule ${data.name}.`);
        if (editing) router.replace("/admin/alerts");
        else formRef.current?.reset();
      },
    );
  }

  if (destinations.length === 0) {
    return (
      <p className="rounded border border-dashed border-slate-400 bg-white p-4 text-sm text-slate-700">
        Add a destination first: every rule says where its alerts go.
      </p>
    );
  }

  return (
    <section aria-labelledby="rule-form-heading" className="rounded border border-slate-300 bg-white p-4">
      <h3 id="rule-form-heading" className="font-semibold">
        {editing ? `Edit rule ${editing.name}` : "Add a rule"}
      </h3>
      <form ref={formRef} onSubmit={onSubmit} noValidate className="mt-3 grid gap-3 md:grid-cols-4">
        <TextField
          id="rule-name"
          path="name"
          name="name"
          label="Name"
          required
          defaultValue={editing?.name}
          placeholder="Overdue cases"
          error={fieldError(result, "name")}
        />
        <SelectField
          id="rule-kind"
          path="kind"
          name="kind"
          label="Condition"
          defaultValue={editing?.kind ?? "escalated_overdue"}
          error={fieldError(result, "kind")}
        >
          {ALERT_RULE_KINDS.map((kind) => (
            <option key={kind} value={kind}>
              {ALERT_KINDS[kind].label}
            </option>
          ))}
        </SelectField>
        <SelectField
          id="rule-destination"
          path="destinationId"
          name="destinationId"
          label="Send to"
          defaultValue={editing?.destinationId}
          error={fieldError(result, "destinationId")}
        >
          {destinations.map((destination) => (
            <option key={destination.id} value={destination.id}>
              {destination.name}
            </option>
          ))}
        </SelectField>
        <TextField
          id="rule-count"
          path="thresholdCount"
          name="thresholdCount"
          label="At least (count)"
          inputMode="numeric"
          required
          defaultValue={editing?.thresholdCount ?? 1}
          hint="Fires when the count reaches this (worker silence ignores it)."
          error={fieldError(result, "thresholdCount")}
        />
        <TextField
          id="rule-amount"
          path="thresholdAmount"
          name="thresholdAmount"
          label="Or money held (optional)"
          inputMode="decimal"
          defaultValue={editing?.thresholdAmount}
          placeholder="250.00"
          hint="For uncertainty, money held after resolution and expiring outputs."
          error={fieldError(result, "thresholdAmount")}
        />
        <TextField
          id="rule-currency"
          path="thresholdCurrency"
          name="thresholdCurrency"
          label="Currency"
          maxLength={3}
          defaultValue={editing?.thresholdCurrency ?? "USD"}
          error={fieldError(result, "thresholdCurrency")}
        />
        <TextField
          id="rule-window"
          path="windowMinutes"
          name="windowMinutes"
          label="Window (minutes)"
          inputMode="numeric"
          required
          defaultValue={editing?.windowMinutes ?? 60}
          hint="How far back uncertainty and poison look; the silence a worker is allowed."
          error={fieldError(result, "windowMinutes")}
        />
        <TextField
          id="rule-renotify"
          path="renotifyMinutes"
          name="renotifyMinutes"
          label="Re-notify every (minutes)"
          inputMode="numeric"
          required
          defaultValue={editing?.renotifyMinutes ?? 60}
          error={fieldError(result, "renotifyMinutes")}
        />
        <label className="flex items-center gap-2 text-sm md:col-span-4">
          <input type="checkbox" name="enabled" defaultChecked={editing?.enabled ?? true} /> Enabled
        </label>
        <div className="flex flex-wrap items-center gap-3 md:col-span-4">
          <Button type="submit" disabled={pending}>
            {pending ? "Saving…" : editing ? "Save rule" : "Add rule"}
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
        <div className="md:col-span-4">
          <FormError result={result} />
        </div>
      </form>
    </section>
  );
}
