import { apiRoute } from "@/lib/api/api-route";
import { db } from "@/lib/db/client";
import { declineReplacement } from "@/lib/services/decide-replacement";
import { idParams } from "@/lib/validation/params";
import { replacementDecisionSchema } from "@/lib/validation/review";

export const dynamic = "force-dynamic";

export const POST = apiRoute({
  audience: "user",
  params: idParams,
  body: replacementDecisionSchema,
  handler: ({ actor, params, body }) => declineReplacement(db(), actor, params.id, body),
});
