import { apiRoute } from "@/lib/api/api-route";
import { db } from "@/lib/db/client";
import { acknowledgeReplacement } from "@/lib/services/producer-replacements";
import { idParams } from "@/lib/validation/params";

export const dynamic = "force-dynamic";

export const POST = apiRoute({
  audience: "producer",
  params: idParams,
  handler: ({ actor, params }) => acknowledgeReplacement(db(), actor, params.id),
});
