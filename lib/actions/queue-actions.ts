"use server";

import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { dryRunBulk, executeBulk } from "@/lib/services/case/bulk-cases";
import { deleteView, saveView, setViewShared } from "@/lib/services/saved-view/saved-views";
import { bulkRequestSchema } from "@/lib/validation/bulk";
import { deleteViewSchema, saveViewSchema, shareViewSchema } from "@/lib/validation/saved-views";
import { safeAction } from "./safe-action";

const dryRunSchema = bulkRequestSchema.options[0];
const executeSchema = bulkRequestSchema.options[1];

/** The bulk bar's dry run: the same service, and the same token, as `POST /api/v1/cases/bulk`. */
export const dryRunBulkAction = safeAction(dryRunSchema, (input, actor) =>
  dryRunBulk(db(), actor, input, env().BULK_APPROVE_LIMIT),
);

export const executeBulkAction = safeAction(executeSchema, (input, actor) => executeBulk(db(), actor, input, env()), {
  revalidate: () => ["/queue", "/overview"],
});

export const saveViewAction = safeAction(saveViewSchema, (input, actor) => saveView(db(), actor, input), {
  revalidate: () => ["/queue"],
});

export const deleteViewAction = safeAction(deleteViewSchema, (input, actor) => deleteView(db(), actor, input.id), {
  revalidate: () => ["/queue"],
});

export const shareViewAction = safeAction(shareViewSchema, (input, actor) => setViewShared(db(), actor, input), {
  revalidate: () => ["/queue"],
});
