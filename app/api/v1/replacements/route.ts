import { apiRoute } from "@/lib/api/api-route";
import { db } from "@/lib/db/client";
import { listReplacements } from "@/lib/services/producer-replacements";
import { replacementsQuery } from "@/lib/validation/params";

export const dynamic = "force-dynamic";

export const GET = apiRoute({
  audience: "producer",
  query: replacementsQuery,
  handler: ({ actor, query }) => listReplacements(db(), actor, query.status),
});
