"use server";

import { z } from "zod";
import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { webhookAllowListFromEnv } from "@/lib/notify/webhook-allow-list";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { acceptOutputsLost } from "@/lib/services/case/accept-outputs-lost";
import { addNote } from "@/lib/services/case/add-note";
import { approveCase } from "@/lib/services/case/approve-case";
import { assignCase } from "@/lib/services/case/assign-case";
import { reconcileCase } from "@/lib/services/case/reconcile-case";
import { reviewCase } from "@/lib/services/case/review-case";
import { resendCaseNotifications } from "@/lib/services/notification/resend-notifications";
import { requestReplacement } from "@/lib/services/replacement/request-replacement";
import {
  approveSchema,
  assignSchema,
  evidenceOnlySchema,
  noteSchema,
  reconcileSchema,
  replacementRequestSchema,
  reviewSchema,
} from "@/lib/validation/review";
import { safeAction } from "./safe-action";

const withCase = <S extends z.ZodType>(schema: S) => z.object({ caseId: z.uuid(), input: schema });
const paths = ({ caseId }: { caseId: string }) => [`/cases/${caseId}`, "/queue"];

export const reconcileAction = safeAction(
  withCase(reconcileSchema),
  ({ caseId, input }, actor) => reconcileCase(db(), actor, caseId, input),
  { revalidate: paths },
);

export const approveAction = safeAction(
  withCase(approveSchema),
  ({ caseId, input }, actor) => approveCase(db(), actor, caseId, input),
  { revalidate: paths },
);

export const reviewAction = safeAction(
  withCase(reviewSchema),
  ({ caseId, input }, actor) => reviewCase(db(), actor, caseId, input),
  { revalidate: paths },
);

export const acceptFailureAction = safeAction(
  withCase(evidenceOnlySchema),
  ({ caseId, input }, actor) => acceptFailure(db(), actor, caseId, input),
  { revalidate: paths },
);

export const acceptOutputsLostAction = safeAction(
  withCase(evidenceOnlySchema),
  ({ caseId, input }, actor) => acceptOutputsLost(db(), actor, caseId, input),
  { revalidate: paths },
);

export const addNoteAction = safeAction(
  withCase(noteSchema),
  ({ caseId, input }, actor) => addNote(db(), actor, caseId, input, env()),
  { revalidate: paths },
);

export const assignAction = safeAction(
  withCase(assignSchema),
  ({ caseId, input }, actor) => assignCase(db(), actor, caseId, input),
  { revalidate: paths },
);

export const requestReplacementAction = safeAction(
  withCase(replacementRequestSchema),
  ({ caseId, input }, actor) =>
    requestReplacement(db(), actor, caseId, input, { ttlSeconds: env().REPLACEMENT_TTL_SECONDS }),
  { revalidate: (input) => [...paths(input), "/finance"] },
);

export const resendNotificationsAction = safeAction(
  z.object({ caseId: z.uuid() }),
  ({ caseId }, actor) =>
    resendCaseNotifications(db(), actor, caseId, {
      send: { allow: webhookAllowListFromEnv(env()) },
      random: Math.random,
    }),
  { revalidate: (input) => [...paths(input), "/overview"] },
);
