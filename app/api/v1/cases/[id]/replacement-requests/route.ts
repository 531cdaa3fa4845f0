import { apiRoute } from "@/lib/api/api-route";
import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { requestReplacement } from "@/lib/services/request-replacement";
import { idParams } from "@/lib/validation/params";
import { replacementRequestSchema } from "@/lib/validation/review";

export const dynamic = "force-dynamic";

export const POST = apiRoute({
  audience: "user",
  params: idParams,
  body: replacementRequestSchema,
  handler: ({ actor, params, body }) =>
    requestReplacement(db(), actor, params.id, body, { ttlSeconds: env().REPLACEMENT_TTL_SECONDS }),
});
