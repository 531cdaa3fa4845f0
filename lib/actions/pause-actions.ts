"use server";

import { db } from "@/lib/db/client";
import { pauseScope } from "@/lib/services/scope-pause/pause-scope";
import { resumeScope } from "@/lib/services/scope-pause/resume-scope";
import { pauseScopeSchema, resumeScopeSchema } from "@/lib/validation/scope-pauses";
import { safeAction } from "./safe-action";

// Every page a pause shows on (decision 064).
const SHOWN_ON = ["/pauses", "/queue", "/overview", "/workers"];

export const pauseScopeAction = safeAction(pauseScopeSchema, (input, actor) => pauseScope(db(), actor, input), {
  revalidate: () => SHOWN_ON,
});

export const resumeScopeAction = safeAction(resumeScopeSchema, (input, actor) => resumeScope(db(), actor, input), {
  revalidate: () => SHOWN_ON,
});
