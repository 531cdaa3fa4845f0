import { apiRoute } from "@/lib/api/api-route";
import { db } from "@/lib/db/client";
import { assignCase } from "@/lib/services/assign-case";
import { idParams } from "@/lib/validation/params";
import { assignSchema } from "@/lib/validation/review";

export const dynamic = "force-dynamic";

export const POST = apiRoute({
  audience: "user",
  params: idParams,
  body: assignSchema,
  handler: ({ actor, params, body }) => assignCase(db(), actor, params.id, body),
});
