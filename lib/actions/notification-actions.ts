"use server";

import { z } from "zod";
import { db } from "@/lib/db/client";
import { requeueNotification } from "@/lib/services/notification/requeue-notification";
import { safeAction } from "./safe-action";

/** A person puts one of a case's producer notifications back in the worker's queue (decision 066). */
export const requeueNotificationAction = safeAction(
  z.object({ caseId: z.uuid(), webhookId: z.string().min(1).max(100) }),
  (input, actor) => requeueNotification(db(), actor, input),
  { revalidate: ({ caseId }) => [`/cases/${caseId}`] },
);
