import type { ActionResult } from "@/lib/actions/safe-action";
import { FormError } from "./form-error";

/**
 * The kit's FormError for a control without fields (it lists the server's issues). New code uses
 * FormError with `listIssues`; this name stays for the modules that still import it.
 */
export function ActionError({ result }: { result: ActionResult<unknown> | null }) {
  return <FormError result={result} listIssues />;
}
