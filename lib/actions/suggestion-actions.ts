"use server";

import { z } from "zod";
import { db } from "@/lib/db/client";
import { confirmSuggestion } from "@/lib/services/case/confirm-suggestion";
import { evidenceText } from "@/lib/validation/common";
import { safeAction } from "./safe-action";

const confirmSchema = z.object({
  caseId: z.uuid(),
  input: z.strictObject({ suggestionId: z.uuid(), evidence: evidenceText, check: z.boolean().optional() }),
});

/**
 * Attaches a suggested job (the ordinary reconcile decision) and marks the suggestion confirmed,
 * atomically; with `check`, approves the job's status check in the same step.
 */
export const confirmSuggestionAction = safeAction(
  confirmSchema,
  ({ caseId, input }, actor) => confirmSuggestion(db(), actor, caseId, input),
  { revalidate: ({ caseId }) => [`/cases/${caseId}`, "/queue"] },
);
