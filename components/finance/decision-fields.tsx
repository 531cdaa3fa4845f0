"use client";

import { useId } from "react";
import { TextAreaField } from "@/components/ui/form";

export type DecisionText = { note: string; evidence: string };
export type DecisionErrors = Partial<Record<keyof DecisionText, string>>;

export function checkDecisionText(value: DecisionText, needsNote = true): DecisionErrors {
  const errors: DecisionErrors = {};
  if (needsNote && !value.note.trim()) errors.note = "An accounting note is required.";
  if (!value.evidence.trim()) errors.evidence = "Evidence is required.";
  return errors;
}

/** The accounting note and evidence every hold decision records (rule 6); paths as the server names them. */
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
        <TextAreaField
          id={`${id}-note`}
          path="note"
          name="note"
          label={noteLabel}
          rows={2}
          maxLength={4000}
          required
          value={value.note}
          error={errors.note}
          onChange={(e) => onChange({ ...value, note: e.target.value })}
        />
      ) : null}
      <TextAreaField
        id={`${id}-evidence`}
        path="evidence"
        name="evidence"
        label="Evidence"
        rows={2}
        maxLength={4000}
        required
        value={value.evidence}
        hint={evidenceHint}
        error={errors.evidence}
        onChange={(e) => onChange({ ...value, evidence: e.target.value })}
      />
    </div>
  );
}
