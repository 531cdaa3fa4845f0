/**
 * A pause of one provider, one producer or one model (decisions 064, 070), for one of two causes:
 * - `person`: someone paused it, until someone resumes it. While it covers a case the worker claims
 *   none of its recovery actions (approvals are still recorded; nothing executes), and no new send
 *   permit is issued for a send it covers;
 * - `breaker`: the unknown-outcome breaker (decision 037) paused a provider, or one producer at a
 *   provider (`atProvider`), until `until` or a resume. It stops new paid sends only: recoveries are
 *   not paid sends (a replacement asks its own permit), so the claim does not read it.
 */
export const PAUSE_KINDS = ["provider", "producer", "model"] as const;
export type PauseKind = (typeof PAUSE_KINDS)[number];

export const PAUSE_CAUSES = ["person", "breaker"] as const;
export type PauseCause = (typeof PAUSE_CAUSES)[number];

export type ScopePause = {
  kind: PauseKind;
  value: string;
  cause: PauseCause;
  /** The breaker's pause of one producer holds at this provider only; "" for every other pause. */
  atProvider: string;
  reason: string;
  pausedBy: string;
  pausedAt: Date;
  /** The breaker's automatic end; null: until someone resumes it. */
  until: Date | null;
};

/** What a pause can cover: a recovery action's case, or a send asking for a permit. */
export type PauseTarget = { provider: string; producer: string; model: string };

/** The (kind, value) keys that would pause `target`, in the order a refusal names them. */
export function pauseKeysOf(target: PauseTarget): [PauseKind, string][] {
  return PAUSE_KINDS.map((kind) => [kind, target[kind]]);
}

/** Whether a pause is open at `now`: not resumed (callers read open rows) and its end not passed. */
export function pauseRunning(pause: Pick<ScopePause, "until">, now: Date): boolean {
  return pause.until === null || pause.until > now;
}

/**
 * The pause that stops `target`, if any: the one policy the claim and the permit gate also apply in
 * SQL. A person's pause is named before the breaker's (it has no end to wait for), then provider,
 * producer, model. `forSends: false` (a recovery action) reads people's pauses only.
 */
export function pauseCovering<P extends Pick<ScopePause, "kind" | "value"> & Partial<ScopePause>>(
  pauses: readonly P[],
  target: PauseTarget,
  forSends = true,
): P | null {
  for (const cause of PAUSE_CAUSES) {
    if (cause === "breaker" && !forSends) continue;
    for (const [kind, value] of pauseKeysOf(target)) {
      const found = pauses.find(
        (p) =>
          (p.cause ?? "person") === cause &&
          p.kind === kind &&
          p.value === value &&
          (!p.atProvider || p.atProvider === target.provider),
      );
      if (found) return found;
    }
  }
  return null;
}

/**
 * The public code a refused permit carries, by the pause's cause (decision 070 keeps both codes
 * producers already handle): a person's pause is `sends_paused` (no Retry-After: it lasts until
 * resumed), the breaker's `provider_paused` (with Retry-After, until its window ends).
 */
export function pauseRefusalCode(cause: PauseCause): "sends_paused" | "provider_paused" {
  return cause === "person" ? "sends_paused" : "provider_paused";
}

/** A provider or model pause stops every producer's work, so only a person who sees every producer may set it. */
export function pauseNeedsEveryProducer(kind: PauseKind): boolean {
  return kind !== "producer";
}
