"use server";

import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { importProviderCosts } from "@/lib/services/usage/import-provider-costs";
import { importUsageFile } from "@/lib/services/usage/import-usage-file";
import { providerCostsSchema, usageImportSchema } from "@/lib/validation/usage";
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
