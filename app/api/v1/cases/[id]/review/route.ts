import { apiRoute } from "@/lib/api/api-route";
import { db } from "@/lib/db/client";
import { reviewCase } from "@/lib/services/review-case";
import { idParams } from "@/lib/validation/params";
import { reviewSchema } from "@/lib/validation/review";

export const dynamic = "force-dynamic";

export const POST = apiRoute({
  audience: "user",
  params: idParams,
  body: reviewSchema,
  handler: ({ actor, params, body }) => reviewCase(db(), actor, params.id, body),
});
