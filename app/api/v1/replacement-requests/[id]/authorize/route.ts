import { apiRoute } from "@/lib/api/api-route";
import { db } from "@/lib/db/client";
import { authorizeReplacement } from "@/lib/services/decide-replacement";
import { idParams } from "@/lib/validation/params";
import { replacementDecisionSchema } from "@/lib/validation/review";
import { processWorkerContext } from "@/lib/worker/process-context";

export const dynamic = "force-dynamic";

export const POST = apiRoute({
  audience: "user",
  params: idParams,
  body: replacementDecisionSchema,
  // The worker's adapters: the same provider accounts, and the same pacing, as every status check.
  handler: ({ actor, params, body }) =>
    authorizeReplacement(db(), actor, params.id, body, { adapters: () => processWorkerContext().adapters }),
});
