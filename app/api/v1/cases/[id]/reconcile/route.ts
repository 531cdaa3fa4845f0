import { apiRoute } from "@/lib/api/api-route";
import { db } from "@/lib/db/client";
import { reconcileCase } from "@/lib/services/reconcile-case";
import { idParams } from "@/lib/validation/params";
import { reconcileSchema } from "@/lib/validation/review";

export const dynamic = "force-dynamic";

export const POST = apiRoute({
  audience: "user",
  params: idParams,
  body: reconcileSchema,
  handler: ({ actor, params, body }) => reconcileCase(db(), actor, params.id, body),
});
