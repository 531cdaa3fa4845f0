import Link from "next/link";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/form";
import { financeHref } from "./finance-href";

/**
 * Finds holds by operation ID, or the start of one, in the tab (or view) and producer shown: a
 * plain GET form, so the search lives in the URL like the tabs and pages do.
 */
export function HoldSearch({
  operation,
  status,
  view,
  producer,
}: {
  operation?: string;
  status: string;
  view?: string;
  producer?: string;
}) {
  return (
    <search className="mt-3">
      <form method="get" action="/finance#holds" className="flex flex-wrap items-start gap-3" aria-label="Find holds">
        {view ? <input type="hidden" name="view" value={view} /> : <input type="hidden" name="status" value={status} />}
        {producer ? <input type="hidden" name="producer" value={producer} /> : null}
        <TextField
          id="hold-search-operation"
          path="operation"
          name="operation"
          type="search"
          label="Operation ID"
          hint="The whole ID or its start."
          autoComplete="off"
          maxLength={200}
          defaultValue={operation ?? ""}
          className="min-w-0 flex-1 sm:max-w-sm"
        />
        <Button type="submit" variant="secondary" className="mt-6">
          Find holds
        </Button>
        {operation ? (
          <Link
            className="mt-8 text-sm text-brand underline"
            href={financeHref(view ? { view } : { status }, producer)}
          >
            Show all holds
          </Link>
        ) : null}
      </form>
    </search>
  );
}
