"use server";

import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { attachUnexplainedCharge } from "@/lib/services/usage/attach-unexplained-charge";
import { importProviderCosts } from "@/lib/services/usage/import-provider-costs";
import { importUsageFile } from "@/lib/services/usage/import-usage-file";
import { markChargeKnownOutside } from "@/lib/services/usage/mark-charge-known-outside";
import { moveJobToSend } from "@/lib/services/usage/move-job-to-send";
import {
  attachUnexplainedSchema,
  knownOutsideSchema,
  moveJobSchema,
  providerCostsSchema,
  usageImportSchema,
} from "@/lib/validation/usage";
import { processWorkerContext } from "@/lib/worker/process-context";
import { safeAction } from "./safe-action";

// The services authorise (usage:import, every producer) and own the transaction (decision 073).

export const importUsageFileAction = safeAction(
  usageImportSchema,
  (input, actor) => importUsageFile(db(), actor, input),
  {
    revalidate: () => ["/finance/usage"],
  },
);

export const importProviderCostsAction = safeAction(
  providerCostsSchema,
  ({ provider, limit }, actor) => {
    const adapter = processWorkerContext().adapters[provider];
    if (!adapter)
      throw new AppError(
        "provider_check_failed",
        `No ${provider} key is configured here, so its costs cannot be read.`,
      );
    return importProviderCosts(db(), actor, adapter, { limit });
  },
  { revalidate: () => ["/finance/usage"] },
);

// Decision 074: the two ways a charge no operation explains leaves the list. The page re-reads itself
// (components/finance/use-decision.ts), as the Finance page's decisions do.
export const attachUnexplainedChargeAction = safeAction(attachUnexplainedSchema, (input, actor) =>
  attachUnexplainedCharge(db(), actor, input),
);

export const markChargeKnownOutsideAction = safeAction(knownOutsideSchema, (input, actor) =>
  markChargeKnownOutside(db(), actor, input),
);

// Decision 084: a job a shop named as its own, moved to the send that made it.
export const moveJobToSendAction = safeAction(moveJobSchema, (input, actor) => moveJobToSend(db(), actor, input));
