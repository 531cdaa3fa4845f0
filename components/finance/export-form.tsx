"use client";

import { useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { focusProblem, SelectField, TextField } from "@/components/ui/form";

type Problem = { path: "from" | "to"; message: string };

function checkRange(from: string, to: string): Problem | null {
  if (!from) return { path: "from", message: "Choose the first day." };
  if (!to) return { path: "to", message: "Choose the last day." };
  return to < from ? { path: "to", message: "“To” must not be before “from”." } : null;
}

/**
 * A plain GET form: the browser downloads the attachment the export route answers with. The range
 * is checked here for a friendly message at the field; the route validates it again. With a
 * producer chosen on the page, the export is of that producer's rows.
 */
export function ExportForm({
  defaultFrom,
  defaultTo,
  producer,
}: {
  defaultFrom: string;
  defaultTo: string;
  producer?: string;
}) {
  const id = useId();
  const [problem, setProblem] = useState<Problem | null>(null);
  const errorAt = (path: Problem["path"]) => (problem?.path === path ? problem.message : undefined);
  return (
    <form
      method="get"
      action="/api/v1/finance/export"
      noValidate
      className="flex flex-wrap items-start gap-3 rounded border border-slate-300 bg-white p-3"
      aria-label="Export to CSV"
      onSubmit={(event) => {
        const data = new FormData(event.currentTarget);
        const found = checkRange(String(data.get("from") ?? ""), String(data.get("to") ?? ""));
        setProblem(found);
        if (!found) return;
        event.preventDefault();
        focusProblem(event.currentTarget, found.path);
      }}
    >
      {producer ? <input type="hidden" name="producer" value={producer} /> : null}
      <TextField
        id={`${id}-from`}
        path="from"
        name="from"
        type="date"
        label="From"
        required
        defaultValue={defaultFrom}
        error={errorAt("from")}
      />
      <TextField
        id={`${id}-to`}
        path="to"
        name="to"
        type="date"
        label="To (included)"
        required
        defaultValue={defaultTo}
        error={errorAt("to")}
      />
      <SelectField id={`${id}-kind`} path="kind" name="kind" label="Rows" defaultValue="holds">
        <option value="holds">Holds reserved in the range</option>
        <option value="ledger">Ledger entries booked in the range</option>
      </SelectField>
      <Button type="submit" className="mt-6">
        Download CSV
      </Button>
      <p className="basis-full text-xs text-slate-600">
        Dates are whole days in UTC. Each row names its operation and producer; amounts are integer micro-units plus a
        plain decimal column, with the currency in a column of its own.
        {producer ? ` Rows of ${producer} only.` : null}
      </p>
    </form>
  );
}
