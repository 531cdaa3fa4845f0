import { apiRoute } from "@/lib/api/api-route";
import { db } from "@/lib/db/client";
import { approveCase } from "@/lib/services/approve-case";
import { idParams } from "@/lib/validation/params";
import { approveSchema } from "@/lib/validation/review";

export const dynamic = "force-dynamic";

export const POST = apiRoute({
  audience: "user",
  params: idParams,
  body: approveSchema,
  handler: ({ actor, params, body }) => approveCase(db(), actor, params.id, body),
});
