import { apiRoute } from "@/lib/api/api-route";
import { db } from "@/lib/db/client";
import { getCaseByOperation } from "@/lib/services/get-case-by-operation";
import { operationParams } from "@/lib/validation/params";

export const dynamic = "force-dynamic";

export const GET = apiRoute({
  audience: "producer",
  params: operationParams,
  handler: ({ actor, params }) => getCaseByOperation(db(), actor, params.operationId),
});
