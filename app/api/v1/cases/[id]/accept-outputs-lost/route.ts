import { apiRoute } from "@/lib/api/api-route";
import { db } from "@/lib/db/client";
import { acceptOutputsLost } from "@/lib/services/accept-outputs-lost";
import { idParams } from "@/lib/validation/params";
import { evidenceOnlySchema } from "@/lib/validation/review";

export const dynamic = "force-dynamic";

export const POST = apiRoute({
  audience: "user",
  params: idParams,
  body: evidenceOnlySchema,
  handler: ({ actor, params, body }) => acceptOutputsLost(db(), actor, params.id, body),
});
