import { apiRoute } from "@/lib/api/api-route";
import { db } from "@/lib/db/client";
import { addNote } from "@/lib/services/add-note";
import { idParams } from "@/lib/validation/params";
import { noteSchema } from "@/lib/validation/review";

export const dynamic = "force-dynamic";

export const POST = apiRoute({
  audience: "user",
  params: idParams,
  body: noteSchema,
  handler: ({ actor, params, body }) => addNote(db(), actor, params.id, body),
});
