import { apiRoute } from "@/lib/api/api-route";
import { db } from "@/lib/db/client";
import { getCase } from "@/lib/services/get-case";
import { idParams } from "@/lib/validation/params";

export const dynamic = "force-dynamic";

export const GET = apiRoute({
  audience: "user",
  params: idParams,
  handler: ({ actor, params }) => getCase(db(), actor, params.id),
});
