import { apiRoute } from "@/lib/api/api-route";
import { db } from "@/lib/db/client";
import { resolveHold } from "@/lib/services/resolve-hold";
import { idParams } from "@/lib/validation/params";
import { settleSchema } from "@/lib/validation/review";

export const dynamic = "force-dynamic";

export const POST = apiRoute({
  audience: "user",
  params: idParams,
  body: settleSchema,
  handler: ({ actor, params, body }) => resolveHold(db(), actor, params.id, { kind: "settle", ...body }),
});
