"use client";

import { useRouter } from "next/navigation";
import { type ServerAction, useServerAction } from "@/components/ui/form";

/**
 * A hold or replacement decision with the Finance page's one refresh channel: router.refresh(),
 * not the server action's revalidatePath. The page must be re-read at two moments: right after a
 * decision (its row leaves the list), and after a refusal, but only once the person has read why
 * (someone else decided first: re-reading at once would remove the row and the explanation with
 * it). Only the browser knows the second moment, so the browser refreshes in both cases, and the
 * finance actions do not revalidate (lib/actions/finance-actions.ts).
 */
export function useDecision<T>(action: ServerAction<T>) {
  const router = useRouter();
  const { run, pending, result, reset } = useServerAction(action);
  return {
    pending,
    result,
    decide(input: unknown, onDone: (data: T) => void) {
      run(input, (data) => {
        onDone(data);
        router.refresh();
      });
    },
    /** Leaves the confirmation; true when it was a refusal, after which the page is re-read. */
    back(): boolean {
      const refused = result !== null && !result.ok;
      reset();
      if (refused) router.refresh();
      return refused;
    },
  };
}
