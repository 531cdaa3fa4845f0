import { apiRoute } from "@/lib/api/api-route";
import { db } from "@/lib/db/client";
import { listCases } from "@/lib/services/list-cases";
import { type ParkCaseResult, parkCase } from "@/lib/services/park-case";
import { listCasesSchema } from "@/lib/validation/list-cases";
import { parkCaseSchema } from "@/lib/validation/park-case";

export const dynamic = "force-dynamic";

export const POST = apiRoute({
  audience: "producer",
  body: parkCaseSchema,
  status: (result) => ((result as ParkCaseResult).created ? 201 : 200),
  handler: ({ actor, body }) => parkCase(db(), actor, body),
});

export const GET = apiRoute({
  audience: "user",
  query: listCasesSchema,
  handler: ({ actor, query }) => listCases(db(), actor, query),
});
