import { apiRoute } from "@/lib/api/api-route";
import { db } from "@/lib/db/client";
import { acceptFailure } from "@/lib/services/accept-failure";
import { idParams } from "@/lib/validation/params";
import { evidenceOnlySchema } from "@/lib/validation/review";

export const dynamic = "force-dynamic";

export const POST = apiRoute({
  audience: "user",
  params: idParams,
  body: evidenceOnlySchema,
  handler: ({ actor, params, body }) => acceptFailure(db(), actor, params.id, body),
});
