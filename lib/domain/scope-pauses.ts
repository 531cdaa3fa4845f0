/**
 * A person's pause (decision 064): one provider, one producer or one model, until resumed. While a
 * pause covers a case, the worker claims none of its recovery actions (approvals are still
 * recorded; nothing executes), and no new send permit is issued for a send it covers.
 */
export const PAUSE_KINDS = ["provider", "producer", "model"] as const;
export type PauseKind = (typeof PAUSE_KINDS)[number];

export type ScopePause = { kind: PauseKind; value: string; reason: string; pausedBy: string; pausedAt: Date };

/** What a pause can cover: a recovery action's case, or a send asking for a permit. */
export type PauseTarget = { provider: string; producer: string; model: string };

/** The (kind, value) keys that would pause `target`, in the order a refusal names them. */
export function pauseKeysOf(target: PauseTarget): [PauseKind, string][] {
  return PAUSE_KINDS.map((kind) => [kind, target[kind]]);
}

/** The pause that stops `target`, if any: the one policy the claim and the permit gate also apply in SQL. */
export function pauseCovering<P extends Pick<ScopePause, "kind" | "value">>(
  pauses: readonly P[],
  target: PauseTarget,
): P | null {
  for (const [kind, value] of pauseKeysOf(target)) {
    const found = pauses.find((p) => p.kind === kind && p.value === value);
    if (found) return found;
  }
  return null;
}

/** A provider or model pause stops every producer's work, so only a person who sees every producer may set it. */
export function pauseNeedsEveryProducer(kind: PauseKind): boolean {
  return kind !== "producer";
}
