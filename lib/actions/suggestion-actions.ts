"use server";

import { z } from "zod";
import { db } from "@/lib/db/client";
import { confirmSuggestion } from "@/lib/services/case/confirm-suggestion";
import { evidenceText } from "@/lib/validation/common";
import { safeAction } from "./safe-action";

const confirmSchema = z.object({
  caseId: z.uuid(),
  input: z.strictObject({ suggestionId: z.uuid(), evidence: evidenceText }),
});

/** Attaches a suggested job (the ordinary reconcile decision) and marks the suggestion confirmed, atomically. */
export const confirmSuggestionAction = safeAction(
  confirmSchema,
  ({ caseId, input }, actor) => confirmSuggestion(db(), actor, caseId, input),
  { revalidate: ({ caseId }) => [`/cases/${caseId}`, "/queue"] },
);
