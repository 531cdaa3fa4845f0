"use client";

import { useId, useState } from "react";
import { Button } from "@/components/ui/button";

/**
 * A plain GET form: the browser downloads the attachment the export route answers with. The range
 * is checked here for a friendly message; the route validates it again.
 */
export function ExportForm({ defaultFrom, defaultTo }: { defaultFrom: string; defaultTo: string }) {
  const id = useId();
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      method="get"
      action="/api/v1/finance/export"
      className="flex flex-wrap items-end gap-3 rounded border border-slate-300 bg-white p-3"
      aria-label="Export to CSV"
      onSubmit={(event) => {
        const data = new FormData(event.currentTarget);
        const from = String(data.get("from") ?? "");
        const to = String(data.get("to") ?? "");
        const problem = !from || !to ? "Choose both dates." : to < from ? "“To” must not be before “from”." : null;
        setError(problem);
        if (problem) event.preventDefault();
      }}
    >
      <div>
        <label htmlFor={`${id}-from`} className="block text-sm font-medium">
          From
        </label>
        <input id={`${id}-from`} type="date" name="from" required defaultValue={defaultFrom} className={input} />
      </div>
      <div>
        <label htmlFor={`${id}-to`} className="block text-sm font-medium">
          To (included)
        </label>
        <input id={`${id}-to`} type="date" name="to" required defaultValue={defaultTo} className={input} />
      </div>
      <div>
        <label htmlFor={`${id}-kind`} className="block text-sm font-medium">
          Rows
        </label>
        <select id={`${id}-kind`} name="kind" defaultValue="holds" className={input}>
          <option value="holds">Holds reserved in the range</option>
          <option value="ledger">Ledger entries booked in the range</option>
        </select>
      </div>
      <Button type="submit">Download CSV</Button>
      <p className="basis-full text-xs text-slate-600">
        Dates are whole days in UTC. Amounts are integer micro-units plus a formatted column.
      </p>
      {error ? (
        <p role="alert" className="basis-full text-sm text-red-800">
          {error}
        </p>
      ) : null}
    </form>
  );
}

const input = "mt-1 rounded border border-slate-400 px-2 py-1 text-sm";
