"use client";

import { useId } from "react";

export type DecisionText = { note: string; evidence: string };
export type DecisionErrors = Partial<Record<keyof DecisionText, string>>;

export function checkDecisionText(value: DecisionText, needsNote = true): DecisionErrors {
  const errors: DecisionErrors = {};
  if (needsNote && !value.note.trim()) errors.note = "An accounting note is required.";
  if (!value.evidence.trim()) errors.evidence = "Evidence is required.";
  return errors;
}

const field = "mt-1 block w-full rounded border border-slate-400 px-2 py-1 text-sm";

/** The accounting note and evidence every hold decision records (rule 6). */
export function DecisionFields({
  value,
  errors,
  onChange,
  noteLabel = "Accounting note",
  evidenceHint,
  showNote = true,
}: {
  value: DecisionText;
  errors: DecisionErrors;
  onChange: (value: DecisionText) => void;
  noteLabel?: string;
  evidenceHint: string;
  showNote?: boolean;
}) {
  const id = useId();
  return (
    <div className="grid gap-3 md:grid-cols-2">
      {showNote ? (
        <div>
          <label htmlFor={`${id}-note`} className="text-sm font-medium">
            {noteLabel} <span className="font-normal text-slate-600">(required)</span>
          </label>
          <textarea
            id={`${id}-note`}
            name="note"
            rows={2}
            maxLength={4000}
            required
            className={field}
            value={value.note}
            aria-invalid={errors.note ? true : undefined}
            aria-describedby={errors.note ? `${id}-note-error` : undefined}
            onChange={(e) => onChange({ ...value, note: e.target.value })}
          />
          {errors.note ? (
            <p id={`${id}-note-error`} className="mt-1 text-sm text-red-800">
              {errors.note}
            </p>
          ) : null}
        </div>
      ) : null}
      <div>
        <label htmlFor={`${id}-evidence`} className="text-sm font-medium">
          Evidence <span className="font-normal text-slate-600">(required)</span>
        </label>
        <textarea
          id={`${id}-evidence`}
          name="evidence"
          rows={2}
          maxLength={4000}
          required
          className={field}
          value={value.evidence}
          aria-invalid={errors.evidence ? true : undefined}
          aria-describedby={`${id}-evidence-hint${errors.evidence ? ` ${id}-evidence-error` : ""}`}
          onChange={(e) => onChange({ ...value, evidence: e.target.value })}
        />
        <p id={`${id}-evidence-hint`} className="mt-1 text-xs text-slate-600">
          {evidenceHint}
        </p>
        {errors.evidence ? (
          <p id={`${id}-evidence-error`} className="mt-1 text-sm text-red-800">
            {errors.evidence}
          </p>
        ) : null}
      </div>
    </div>
  );
}
