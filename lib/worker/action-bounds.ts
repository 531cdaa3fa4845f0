import { type ActionBound, attemptsWithin, defaultActionBound } from "@/lib/domain/action-bound";
import { ACTION_BOUND_VARS, type ActionBoundVar, byProvider } from "@/lib/providers/registry";
import type { ProviderName } from "@/lib/providers/types";

export type ActionBounds = Readonly<Record<ProviderName, ActionBound>>;

/**
 * Each provider's bound on one approved action (DESIGN rule 19): its `<NAME>_ACTION_MAX_SECONDS`
 * and `<NAME>_ACTION_MAX_ATTEMPTS` where set; otherwise twice its documented longest run, and as
 * many attempts as that time holds at the shortest wait between two checks.
 */
export function actionBoundsFrom(
  settings: Partial<Record<ActionBoundVar, number | undefined>>,
  pollBaseSeconds: number,
): ActionBounds {
  return byProvider((provider) => {
    const vars = ACTION_BOUND_VARS[provider.name];
    const maxSeconds = settings[vars.seconds] ?? defaultActionBound(provider.maxRunSeconds, pollBaseSeconds).maxSeconds;
    return { maxSeconds, maxAttempts: settings[vars.attempts] ?? attemptsWithin(maxSeconds, pollBaseSeconds) };
  });
}
