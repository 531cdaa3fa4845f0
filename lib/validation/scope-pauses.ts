import { z } from "zod";
import { PAUSE_KINDS } from "@/lib/domain/scope-pauses";

const scope = {
  kind: z.enum(PAUSE_KINDS),
  value: z.string().trim().min(1, "name what to pause").max(200),
};
const reason = z.string().trim().min(1, "say why").max(500);

/** Pausing a provider, producer or model (decision 064): what, and why. */
export const pauseScopeSchema = z.strictObject({ ...scope, reason });
export type PauseScopeInput = z.infer<typeof pauseScopeSchema>;

/** Resuming one: which pause, and why now. */
export const resumeScopeSchema = z.strictObject({ ...scope, reason });
export type ResumeScopeInput = z.infer<typeof resumeScopeSchema>;
