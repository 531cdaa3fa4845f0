import { revalidatePath } from "next/cache";
import type { z } from "zod";
import { currentUser, type UserPrincipal } from "@/lib/auth/session";
import type { ErrorBody } from "@/lib/errors";
import { AppError, toErrorBody } from "@/lib/errors";
import { logger } from "@/lib/log/logger";
import { containsUnstorable, UNSTORABLE_MESSAGE } from "@/lib/validation/nul";
import { parseInput } from "@/lib/validation/parse-input";

export type ActionResult<T> = { ok: true; data: T } | { ok: false; error: ErrorBody["error"] };

/**
 * The one shape of every server action: parse with zod, authenticate from the session (never from
 * the payload), run one service (which authorises and owns its transaction), revalidate, and return
 * a typed result. Failures come back as data, so the UI can explain them instead of crashing.
 */
export function safeAction<S extends z.ZodType, T>(
  schema: S,
  run: (input: z.infer<S>, actor: UserPrincipal) => Promise<T>,
  options: { revalidate?: (input: z.infer<S>, data: T) => string[] } = {},
) {
  return async (raw: unknown): Promise<ActionResult<T>> => {
    try {
      const actor = await currentUser();
      if (!actor) throw new AppError("unauthenticated", "Your session has ended; sign in again.");
      if (containsUnstorable(raw))
        throw new AppError("invalid_request", `${UNSTORABLE_MESSAGE} Nor may it nest too deeply.`);
      const input = parseInput(schema, raw);
      const data = await run(input, actor);
      for (const path of options.revalidate?.(input, data) ?? []) revalidatePath(path);
      return { ok: true, data };
    } catch (error) {
      const { status, body } = toErrorBody(error);
      if (status >= 500) logger("action").error({ error: String(error) }, "server action failed");
      return { ok: false, error: body.error };
    }
  };
}
